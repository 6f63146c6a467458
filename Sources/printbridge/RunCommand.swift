import Agent
import AgentSettings
import APNsClient
import ArgumentParser
import ControlAPI
import CoreMetrics
import DeviceStore
import EventReplay
import HomeAssistantLink
import Logging
import PrintBridgeCore
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Watch Home Assistant and send pushes: the agent's main job.",
        discussion: """
            Connects to HA_URL (http(s)://host:8123 or ws(s)://…/api/websocket; in an add-on \
            ws://supervisor/core/websocket) with the long-lived access token in HA_TOKEN or \
            the file HA_TOKEN_FILE (inside an add-on, SUPERVISOR_TOKEN). HA_CA_FILE adds a CA \
            for a self-signed HA certificate. It stays connected: pings every 30 s \
            (HA_PING_INTERVAL; no pong within HA_PONG_TIMEOUT, 10 s, reconnects), reconnects \
            with back-off, and resyncs from get_states without repeating alerts. Messages \
            over HA_MAX_MESSAGE_MB (64) close the connection.

            Pushes go to APNs (APNS_* settings, see `printbridge send-test --help`), or with \
            --dry-run are printed as JSON lines like `replay` prints them. Phones register \
            through the app's HTTP API on API_LISTEN (default 0.0.0.0:3000; "off" disables it), \
            which needs API_TOKEN or API_TOKEN_FILE (or --no-api-auth), or come from \
            --devices FILE (the replay format) or `printbridge devices add`. SIGTERM or SIGINT stops it: no new events, \
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
        let settings = try configOption.settings()
        let logger = try RunLog.bootstrap(settings)
        try settings.check([.delivery, .homeAssistant, .planner, .state])  // DRY_RUN checked even with --dry-run
        let dryRun = self.dryRun || settings.delivery.dryRun
        let (endpoint, token) = try settings.haConnection()
        let deviceStore = try StateDirectory.openStore(settings)
        if let devices {
            do {
                try Self.add(try DevicesFile.load(path: devices), to: deviceStore)
            } catch {
                throw CommandFailure.config("\(error)")
            }
        }
        let apns: APNsSender? = dryRun ? nil : try APNsSetup.sender(settings, forRun: true) { _, _, _ in
            // The agent acts on the verdict that comes with the push's outcome.
        } onConnectionReplaced: { waiting in
            logger.warning("the APNs connection stopped answering; it is replaced and its requests sent again",
                           metadata: ["apns.waiting": .stringConvertible(waiting)])
        }
        let sender: any PushSender = apns ?? DryRunSender(logger: logger)
        // A broadcast channel per printer for iOS 18 Live Activities, with the sender's key (issue 52).
        let channels = try apns.map { sender throws in
            do { return try APNsChannels(sender: sender) } catch { throw RunPart.failure(RunPart.Failure(part: .apns, error: error), store: "") }
        }
        let planner = settings.planner
        var agentConfiguration = Agent<LinkEvents>.Configuration(endpoint: endpoint)
        agentConfiguration.retryMaximum = settings.delivery.retryMaximum
        let link = HomeAssistantLink(
            endpoint: endpoint, accessToken: token, caFile: settings.homeAssistant.caFile,
            configuration: settings.homeAssistant.session, reader: HAFrameReader(matcher: settings.matcher),
            maximumMessageBytes: settings.homeAssistant.maximumMessageBytes)
        let metrics = AgentMetrics(
            haGracePeriod: settings.delivery.healthGrace, apnsMode: dryRun ? "dry-run" : "configured")
        // The agent's own metrics are made with this factory explicitly; the
        // process-wide one is for libraries, which report through
        // `MetricsSystem` (swift-metrics' global factory, set once per
        // process): bootstrapped with the same factory, whatever they count
        // shows on /metrics beside the agent's. Only here, in the command:
        // library code and tests never bootstrap it.
        MetricsSystem.bootstrap(metrics.factory)
        metrics.readCounts { [link] in
            let events = link.eventStatistics
            return .init(
                eventsReceived: events.count, eventsMatched: link.matchedUpdates, lastEvent: events.last,
                tokenRenewals: apns?.providerTokenRenewals ?? 0)
        }
        let printers = Mutex<[PrinterSnapshot]>([])
        let agentStore: AgentStore
        do {
            agentStore = try AgentStore(
                deviceStore, logger: logger, notificationRetention: settings.delivery.notificationRetention,
                printRetention: settings.delivery.printRetention)
        } catch {
            throw CommandFailure.system("\(error)")
        }
        let snapshots = try SnapshotSetup.make(settings, store: deviceStore, link: link, metrics: metrics, logger: logger)
        var takeSnapshot: (@Sendable (String, EpochTime) async -> String?)?
        if let snapshots { takeSnapshot = { printer, now in await snapshots.take(printer: printer, now: now) } }
        let agent = Agent(
            linkEvents: link.events, sender: sender, store: agentStore, planner: planner,
            metrics: metrics, logger: logger, configuration: agentConfiguration,
            hooks: .init(
                releaseMemory: { FreedMemory.release() }, publishPrinters: { list in printers.withLock { $0 = list } },
                takeSnapshot: takeSnapshot,
                snapshotTimeout: settings.delivery.snapshotTimeout, channels: channels,
                channelEnvironment: apns?.configuration.environment.rawValue ?? "sandbox"))
        let server = try APISetup.server(
            settings: settings, store: deviceStore,
            apns: .init(configured: apns != nil, bundleID: planner.bundleID, production: apns?.configuration.environment == .production),
            printers: { printers.withLock { $0 } }, devicesChanged: { agent.inbox.devicesChanged() },
            allowWithoutToken: noAPIAuth, logger: logger, metrics: metrics, pressButton: PrinterActionSetup.presser(link),
            snapshots: snapshots?.serving, testPushes: { device, done in agent.inbox.testPush(device, done: done) },
            alertOpened: { agent.inbox.alertOpened($0) })
        let signals = SignalService(reload: SettingsReload(settings, logger: logger), inbox: agent.inbox)
        // One group: started in this order and, at SIGTERM or SIGINT (the
        // group's own signals) or a part failing, shut down in reverse: the
        // link (no more events), the agent (pushes in flight answered,
        // everything written down), the API, APNs.
        let parts: [RunPart] = [
            apns.map { RunPart(.apns, $0) }, server.map { RunPart(.api, $0) }, RunPart(.agent, agent, waitsForItsTurn: true),
            RunPart(.homeAssistant, link), RunPart(.signals, signals),
        ].compactMap { $0 }
        logger.info("connecting to Home Assistant", metadata: ["ha.url": "\(endpoint)"])
        let group = ServiceGroup(configuration: .init(
            services: parts.map {
                .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                      failureTerminationBehavior: .gracefullyShutdownGroup)
            },
            gracefulShutdownSignals: SignalService.shutdown,
            logger: logger))
        do {
            try await group.run()
        } catch {
            await channels?.shutdown()
            throw RunPart.failure(error, store: deviceStore.path)
        }
        await channels?.shutdown()
    }

    /// Starts the link's threads, or exits 71 with the system's reason (78
    /// when libwebsockets cannot be set up: its TLS, the CA file).
    static func start(_ link: HomeAssistantLink) throws {
        do { try link.start() } catch {
            throw RunPart.failure(RunPart.Failure(part: .homeAssistant, error: error), store: "")
        }
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
            for prefix in device.channelPrinters.sorted() {
                _ = try store.followByChannel(deviceID: id, printerPrefix: prefix)
            }
        }
    }
}
