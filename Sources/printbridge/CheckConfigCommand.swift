import APNsClient
import ArgumentParser
import Dispatch
import EventReplay
import HomeAssistantLink
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

struct CheckConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check the settings offline and print the effective configuration (secrets redacted).",
        discussion: """
            Reads --config FILE (or $PRINTBRIDGE_CONFIG) and the environment (which wins), then
            checks what can be checked without a network: HA_URL is well-formed, the HA and API
            tokens can be read, the APNs key parses as a P-256 key, numbers are numbers, the
            state directory is writable, log settings are known, the `printers:` map is
            well-formed. Every problem is one line on stderr. Exit 0 when `run` would start,
            78 otherwise.

            With --printers-from FILE (a recording, as `record` writes) or --printers-from-ha
            (connects to HA_URL and reads its entity registry and states), it also lists the
            printers it finds and the profile each is read through.
            """
    )

    @Option(name: .customLong("printers-from"), help: "List the printers found in this recording (from `record`).")
    var printersFrom: String?

    @Flag(name: .customLong("printers-from-ha"), help: "Connect to Home Assistant and list the printers it has.")
    var printersFromHA = false

    @OptionGroup var configOption: ConfigOption

    @Flag(name: .customLong("dry-run"), help: "Check for `run --dry-run` (or DRY_RUN=true): APNs settings are not required.")
    var dryRun = false

    @Flag(name: .customLong("no-api-auth"), help: "Check for `run --no-api-auth`: no API token is required.")
    var noAPIAuth = false

    /// Every secret the settings hold: the tokens, whether given directly or
    /// in files, and a password in a URL.
    static func secretValues() -> [String] {
        var values: [String] = []
        for setting in ConfigFile.settings {
            guard let value = StandardStreams.environment(setting.name) else { continue }
            if setting.secret { values.append(value.trimming(" ")) }
            if setting.name.hasSuffix("_TOKEN_FILE"), let text = StandardStreams.readSmallFile(value) {
                values.append(String(text.filter { !$0.isWhitespace }))
            }
            // user:password@ in a URL.
            let parts = value.split(separator: "://", maxSplits: 1)
            if parts.count == 2, let authority = parts[1].split(separator: "/", maxSplits: 1).first,
                let at = authority.lastIndex(of: "@")
            {
                let userinfo = authority[..<at]
                if let colon = userinfo.firstIndex(of: ":") { values.append(String(userinfo[userinfo.index(after: colon)...])) }
            }
        }
        // Longest first, so a secret inside another is not half replaced.
        return values.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
    }

    func run() async throws {
        try configOption.activate()
        StandardStreams.secrets.withLock { $0 = Self.secretValues() }
        let file = ConfigFile.current.withLock { $0 }
        StandardStreams.out("config file: \(file?.path ?? "none")")
        for setting in ConfigFile.settings {
            let source: String
            let value: String
            if let text = StandardStreams.processEnvironment(setting.name) {
                (source, value) = ("environment", text)
            } else if let text = file?.values[setting.name] {
                (source, value) = ("file", text)
            } else if let text = StandardStreams.environment(setting.name) {
                (source, value) = ("systemd credentials", text)
            } else {
                continue
            }
            StandardStreams.out("\(setting.name.lowercased()): \(setting.secret ? "<redacted>" : value)  # from \(source)")
        }
        var failures = 0
        func check(_ step: () throws -> Void) {
            do { try step() } catch { report(error) }
        }
        /// A check's failure: its line on stderr (a step that printed its own says nothing more).
        func report(_ error: any Error) {
            if let message = (error as? CommandFailure)?.message { problem(message) } else { failures += 1 }
        }
        func problem(_ message: String) {
            StandardStreams.err("printbridge: \(message)")
            failures += 1
        }
        check { _ = try RunLog.bootstrap() }
        check {
            let endpoint = try RunCommand.haEndpoint()
            _ = try RunCommand.haToken(endpoint: endpoint)
            StandardStreams.out("home assistant: \(endpoint)")
        }
        if let path = StandardStreams.environment("HA_CA_FILE"), access(path, R_OK) != 0 {
            problem("HA_CA_FILE \(path) cannot be read")
        }
        for name in ["HA_PING_INTERVAL", "HA_PONG_TIMEOUT", "HA_MAX_MESSAGE_MB", "HEALTH_HA_GRACE", "APNS_RETRY_MAX"] {
            check { _ = try RunCommand.seconds(name) }
        }
        check { _ = try ReplayCommand.plannerConfiguration(bundleID: nil, milestones: nil, liveActivityInterval: nil) }
        check {
            if let listen = try APISetup.listenAddress(allowWithoutToken: noAPIAuth) {
                StandardStreams.out("api: \(listen.host):\(listen.port)")
                if !(try APISetup.trustedNetworks()).isEmpty {
                    // The choice, said plainly: the unmodified app sends no token.
                    var trusted = [StandardStreams.environment("API_TRUSTED_NETWORKS")].compactMap { $0 }
                    if StandardStreams.environment("SUPERVISOR_TOKEN") != nil {
                        trusted.append("\(APISetup.supervisorAddress) (Home Assistant's ingress proxy)")
                    }
                    StandardStreams.out("api: no token needed from \(trusted.joined(separator: ", ")); everyone else needs the API token")
                }
            } else {
                StandardStreams.out("api: off")
            }
        }
        let apnsSet = !APNsSetup.settings().keys.filter { $0 != "APNS_BUNDLE_ID" }.isEmpty
        var dryRun = self.dryRun
        check {
            let setting = try RunCommand.dryRunSetting()  // checked even with --dry-run, as run checks it
            dryRun = dryRun || setting
        }
        if dryRun && !apnsSet {
            StandardStreams.out("apns: not configured (dry run)")
        } else {
            check {
                let sender = try APNsSetup.sender(forRun: true)
                StandardStreams.out("apns: \(sender.configuration.environment == .production ? "production" : "sandbox"), key \(sender.configuration.keyID) parses as P-256")
            }
        }
        let directory = StateDirectory.path()
        if access(directory, W_OK | X_OK) != 0 {
            problem("state directory \(directory) is not writable (set STATE_DIR)")
        } else {
            StandardStreams.out("state directory: \(directory)")
        }
        let mapped = ConfigFile.current.withLock { $0?.printers ?? [] }
        for printer in mapped {
            let roles = PrinterMap.roles.filter { printer.entities[$0.field] != nil }.map(\.name)
            StandardStreams.out("mapped printer \(printer.prefix): \(roles.joined(separator: ", ")) (\(printer.profile.title))")
        }
        if let printersFrom {
            check {
                var listing = PrinterListing()
                var reader = HAFrameReader(matcher: ConfigFile.matcher())
                do {
                    var lines = try LineReader(path: printersFrom)
                    try lines.forEachLine { line, _ in
                        guard let messages = try? reader.messages(in: line) else { return }
                        for message in messages { listing.take(reader.inputs(from: message)) }
                    }
                } catch {
                    problem("--printers-from: \(error)")
                    throw error
                }
                listing.lines(mapped: mapped).forEach { StandardStreams.out($0) }
            }
        }
        if printersFromHA {
            do {
                let listing = try await Self.liveListing()
                listing.lines(mapped: mapped).forEach { StandardStreams.out($0) }
            } catch { report(error) }
        }
        if failures > 0 {
            throw CommandFailure.config("\(failures) problem(s) in the configuration")
        }
        StandardStreams.out("configuration OK")
    }

    /// Connects to Home Assistant like `run` and reads the printers from its
    /// registry and `get_states` answer (at most 30 seconds).
    static func liveListing() async throws -> PrinterListing {
        let endpoint = try RunCommand.haEndpoint()
        let token = try RunCommand.haToken(endpoint: endpoint)
        let link = HomeAssistantLink(
            endpoint: endpoint, accessToken: token, caFile: StandardStreams.environment("HA_CA_FILE"),
            reader: HAFrameReader(matcher: ConfigFile.matcher()))
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { link.stop() }
        var listing = PrinterListing()
        var failure = "no states within 30 seconds"
        try RunCommand.start(link)
        for await event in link.events {
            switch event {
            case .printers(let inputs):
                listing.take(inputs)
                if listing.sawSnapshot { link.stop() }
            case .disconnected(let cause) where !listing.sawSnapshot:
                failure = cause.description
                link.stop()
            default:
                break
            }
        }
        guard listing.sawSnapshot else {
            throw CommandFailure.config("could not read Home Assistant's states at \(endpoint): \(failure)")
        }
        return listing
    }
}
