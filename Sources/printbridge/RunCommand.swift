import APNsClient
import ArgumentParser
import ControlAPI
import DeviceStore
import Dispatch
import EventReplay
import HomeAssistantLink
import Logging
import PrintBridgeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Watch Home Assistant and send pushes: the agent's main job.",
        discussion: """
            Connects to HA_URL (http(s)://host:8123 or ws(s)://…/api/websocket; in an add-on
            ws://supervisor/core/websocket) with the long-lived access token in HA_TOKEN or
            the file HA_TOKEN_FILE (inside an add-on, SUPERVISOR_TOKEN). HA_CA_FILE adds a CA
            for a self-signed HA certificate. It stays connected: pings every 30 s
            (HA_PING_INTERVAL; no pong within HA_PONG_TIMEOUT, 10 s, reconnects), reconnects
            with back-off, and resyncs from get_states without repeating alerts. Messages
            over HA_MAX_MESSAGE_MB (64) close the connection.

            Pushes go to APNs (APNS_* settings, see `printbridge send-test --help`), or with
            --dry-run are printed as JSON lines like `replay` prints them. Phones register
            through the app's HTTP API on API_LISTEN (default 0.0.0.0:3000; "off" disables it),
            which needs API_TOKEN or API_TOKEN_FILE (or --no-api-auth), or come from
            --devices FILE (the replay format) or `printbridge devices add`. SIGTERM or SIGINT stops it: no new events,
            pushes in flight get up to 5 s, exit 0.
            """
    )

    @Flag(name: .customLong("dry-run"), help: "Print the pushes instead of sending them to APNs (or DRY_RUN=true).")
    var dryRun = false

    @Option(name: .long, help: "Devices file (JSON array, as for replay), added to the device store.")
    var devices: String?

    @Flag(name: .customLong("no-api-auth"), help: "Serve the app's API without a token (trusted networks only).")
    var noAPIAuth = false

    @OptionGroup var configOption: ConfigOption

    func run() async throws {
        try configOption.activate()
        let logger = try RunLog.bootstrap()
        let dryRunSetting = try Self.dryRunSetting()  // checked even with --dry-run
        let dryRun = self.dryRun || dryRunSetting
        let endpoint = try Self.haEndpoint()
        let token = try Self.haToken(endpoint: endpoint)
        let store = try StateDirectory.openStore()
        if let devices {
            do {
                try Self.add(try DevicesFile.load(path: devices), to: store)
            } catch {
                StandardStreams.err("printbridge: \(error)")
                throw ExitCodes.config
            }
        }
        let deviceList: [Device]
        let remembered: [String: PrinterNotificationState]
        let watchingSince: EpochTime
        let kept: [Outbox.Entry]
        do {
            deviceList = try store.devicesAndActivities()
            remembered = try store.notificationStates()
            watchingSince = try store.watchingSince()
            kept = try store.outbox()
        } catch {
            StandardStreams.err("printbridge: \(error)")
            throw ExitCodes.config
        }
        logger.info("device store \(store.path): \(deviceList.count) device(s)", metadata: ["store.path": "\(store.path)", "devices.count": .stringConvertible(deviceList.count)])
        let rejections = Mutex<[(String, PushOutcome.TokenAction)]>([])
        let sender: APNsSender? =
            dryRun
            ? nil
            : try APNsSetup.sender(forRun: true) { push, action, reason in
                logger.warning("APNs refused a token", metadata: [
                    "push.device": "\(push.shortToken)", "token.action": "\(action.rawValue)", "apns.reason": "\(reason)",
                ])
                rejections.withLock { $0.append((push.token, action)) }
            } onConnectionReplaced: { waiting in
                logger.warning("the APNs connection stopped answering; it is replaced and its requests sent again",
                               metadata: ["apns.waiting": .stringConvertible(waiting)])
            }
        let planner = try ReplayCommand.plannerConfiguration(
            bundleID: sender?.configuration.bundleID, milestones: nil, liveActivityInterval: nil)
        if deviceList.isEmpty {
            logger.warning("no devices registered (give --devices FILE, use the API or printbridge devices add); pushes have nowhere to go")
        }
        let retryMaximum = try Self.seconds("APNS_RETRY_MAX") ?? 30
        var sessionConfiguration = HASession.Configuration()
        if let interval = try Self.seconds("HA_PING_INTERVAL") { sessionConfiguration.pingInterval = interval }
        if let timeout = try Self.seconds("HA_PONG_TIMEOUT") { sessionConfiguration.pongTimeout = timeout }
        let link = HomeAssistantLink(
            endpoint: endpoint, accessToken: token, caFile: StandardStreams.environment("HA_CA_FILE"),
            configuration: sessionConfiguration, reader: HAFrameReader(matcher: ConfigFile.matcher()),
            maximumMessageBytes: Int((try Self.seconds("HA_MAX_MESSAGE_MB") ?? 64) * 1_048_576))
        let metrics = AgentMetrics(
            haGracePeriod: try Self.seconds("HEALTH_HA_GRACE") ?? 60, apnsMode: dryRun ? "dry-run" : "configured")
        let shared = APISetup.Shared()
        let server = try APISetup.start(
            store: store,
            apns: .init(
                configured: sender != nil, bundleID: planner.bundleID,
                production: sender?.configuration.environment == .production),
            shared: shared, allowWithoutToken: noAPIAuth, logger: logger, metrics: metrics)
        defer { server?.stop() }
        var restored = PushPlanner(configuration: planner, restoring: remembered)
        restored.watchingSince = watchingSince
        var pipeline = PrinterPipeline(planner: restored, devices: deviceList, clock: SystemClock())

        let signals = Self.stopOnSignals { link.stop() }
        defer { signals.forEach { $0.cancel() } }
        // SIGHUP: reload the devices from the store.
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hangup.setEventHandler {
            shared.settingsReload.withLock { $0 = true }
            shared.devicesChanged.withLock { $0 = true }
        }
        hangup.resume()
        defer { hangup.cancel() }
        var storeVersion = (try? store.dataVersion()) ?? 0
        logger.info("connecting to \(endpoint)", metadata: ["ha.url": "\(endpoint)"])
        try RunCommand.start(link)

        let writer = StoreWriter(store: store, logger: logger)
        defer { writer.drain() }
        let delivery = sender.map { sender in
            OutboxDelivery(
                sender: sender, writer: writer, metrics: metrics, logger: logger,
                outbox: Outbox(firstRetryDelay: min(2, retryMaximum), maximumRetryDelay: retryMaximum))
        }
        delivery?.restore(kept)
        do {
            var printersChanged = 0
            var trimDue = false
            func deliver(_ output: PrinterPipeline.Output, states: [String: PrinterNotificationState]) {
                for failure in output.failures { logger.error("\(failure)") }
                for print in output.prints { RunLog.printEnded(print, logger) }
                let changed = states.filter { output.changedPrinters.contains($0.key) }
                if let delivery {
                    // Saved with their pushes, in one transaction; the pushes
                    // stay in the outbox until APNs has answered them.
                    delivery.submit(
                        output.pushes, states: changed, prints: output.prints, endedActivities: output.endedActivities)
                } else {
                    writer.commit(states: changed, prints: output.prints, endedActivities: output.endedActivities)
                    for push in output.pushes {
                        metrics.push(push, outcome: "dry_run")
                        RunLog.dryRun(push, logger)
                    }
                }
            }
            for await event in link.events {
                // Devices registered or changed through the API since the last event.
                if shared.settingsReload.withLock({ asked in defer { asked = false }; return asked }) {
                    if let configuration = SettingsReload.reread(planner: pipeline.planner.configuration, logger: logger) {
                        pipeline.reconfigure(configuration)
                    }
                }
                if shared.devicesChanged.withLock({ changed in defer { changed = false }; return changed }) {
                    do {
                        writer.drain()  // ended activities' tokens are gone before the devices are read back
                        pipeline.devices = try store.devicesAndActivities()
                        logger.debug("devices reloaded: \(pipeline.devices.count)", metadata: ["devices.count": .stringConvertible(pipeline.devices.count)])
                    } catch { logger.error("\(error)") }
                }
                // Tokens APNs refused since the last event: stop using them.
                for (token, action) in rejections.withLock({ list in defer { list.removeAll() }; return list }) {
                    for change in pipeline.applyTokenRejection(token: token, action: action) {
                        logger.warning("\(change)")
                    }
                    do { try store.applyTokenRejection(token: token, action: action) } catch {
                        logger.error("\(error)")
                    }
                }
                switch event {
                case .printers(let inputs):
                    for input in inputs {
                        let due = pipeline.fireDue(upTo: SystemClock().now())
                        deliver(due, states: pipeline.planner.printers)
                        let output = pipeline.handle(input)
                        deliver(output, states: pipeline.planner.printers)
                    }
                case .bulkHandled:
                    // The multi-MB snapshot or a huge message: give its memory
                    // back on the next tick, once the link has let go of it too.
                    trimDue = true
                case .tick:
                    if trimDue {
                        trimDue = false
                        FreedMemory.release()
                    }
                    // Another process (printbridge devices …) changed the store.
                    if let version = try? store.dataVersion(), version != storeVersion {
                        storeVersion = version
                        shared.devicesChanged.withLock { $0 = true }
                    }
                    let output = pipeline.fireDue(upTo: SystemClock().now())
                    deliver(output, states: pipeline.planner.printers)
                    delivery?.fireDue()
                    let events = link.eventStatistics
                    metrics.lastEvent(at: events.last)
                    metrics.update(
                        eventsReceived: events.count, eventsMatched: link.matchedUpdates,
                        printers: pipeline.cache.printers.count, devices: pipeline.devices.filter(\.receivesAlerts).count,
                        tokenRenewals: sender?.providerTokenRenewals ?? 0)
                    // The API's view of the printers, refreshed at most twice a second.
                    if pipeline.statistics.printerChanges != printersChanged {
                        printersChanged = pipeline.statistics.printerChanges
                        let printers = pipeline.cache.printers.keys.sorted().compactMap { pipeline.cache[$0] }
                        shared.printers.withLock { $0 = printers }
                    }
                case .connected:
                    metrics.haConnected()
                    logger.info("connected to \(endpoint)", metadata: ["ha.url": "\(endpoint)"])
                case .disconnected(let cause):
                    metrics.haDisconnected()
                    // Our own stop is news, not a problem.
                    logger.log(
                        level: cause == .shuttingDown ? .info : .warning,
                        "disconnected from Home Assistant: \(cause)\(Self.hint(cause, endpoint))",
                        metadata: ["ha.url": "\(endpoint)", "ha.reason": "\(cause)"])
                case .notice(let notice):
                    if let line = Self.describe(notice) { logger.log(level: Self.level(notice), "\(line)") }
                case .received:
                    break
                }
            }
        }
        if let delivery, let sender {
            // Pushes in flight get up to 5 s; what APNs has not answered by
            // then stays in the outbox for the next start.
            for _ in 0..<100 where delivery.inFlight > 0 {
                try? await Task.sleep(nanoseconds: 50_000_000)
            }
            sender.shutdown(grace: 0)
            if delivery.backlog > 0 {
                logger.info("\(delivery.backlog) push(es) kept in the outbox for the next start",
                            metadata: ["outbox.count": .stringConvertible(delivery.backlog)])
            }
        }
        sender?.shutdown(grace: 0)
        logger.info("stopped")
    }

    /// Adds a devices file's devices to the store (registering each token once).
    static func add(_ devices: [Device], to store: DeviceStore) throws {
        for device in devices {
            let id = try store.register(
                apnsToken: device.apnsToken, haURL: nil, printerPrefix: nil, printerName: device.printerName,
                printerPrefixes: device.printerPrefixes.isEmpty ? nil : device.printerPrefixes.sorted(),
                language: device.language
            ).deviceID
            _ = try store.updatePreferences(deviceID: id, .init(device.preferences))
            for (prefix, token) in device.activityTokens {
                _ = try store.setActivityToken(token, printerPrefix: prefix, deviceID: id)
            }
            if let token = device.pushToStartToken { _ = try store.setPushToStartToken(token, deviceID: id) }
        }
    }

    /// Runs `stop` once on SIGTERM or SIGINT.
    static func stopOnSignals(_ stop: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop() }
            source.resume()
            return source
        }
    }
}
