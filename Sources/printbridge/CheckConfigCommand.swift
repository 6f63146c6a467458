import AgentSettings
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
            Reads --config FILE (or $PRINTBRIDGE_CONFIG) and the environment (which wins), then \
            checks what can be checked without a network: HA_URL is well-formed, the HA and API \
            tokens can be read, the APNs key parses as a P-256 key, numbers are numbers, the \
            state directory is writable, log settings are known, the `printers:` map is \
            well-formed. Every problem is one line on stderr. Exit 0 when `run` would start, \
            78 otherwise.

            With --printers-from FILE (a recording, as `record` writes) or --printers-from-ha \
            (connects to HA_URL and reads its entity registry and states), it also lists the \
            printers it finds and the profile each is read through.

            The settings (file key; the environment variable is its upper case):
            """ + SettingCatalog.all.map { "\n  \($0.name.lowercased()): \($0.help)" }.joined()
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

    func run() async throws {
        let settings = try configOption.settings()
        let redacted = Redactor(settings)
        func say(_ line: String) { StandardStreams.out(redacted(line)) }
        var failures = 0
        func problem(_ message: String) {
            StandardStreams.err(redacted("printbridge: \(message)"))
            failures += 1
        }
        /// A check's failure: its line on stderr (a step that printed its own says nothing more).
        func report(_ error: any Error) {
            if let failure = error as? CommandFailure {
                if let message = failure.message { problem(message) } else { failures += 1 }
            } else {
                problem("\(error)")
            }
        }
        func check(_ step: () throws -> Void) {
            do { try step() } catch { report(error) }
        }

        // The settings as `run` would see them.
        say("config file: \(settings.file?.path ?? "none")")
        for setting in SettingCatalog.all {
            guard let value = settings.values[setting.name] else { continue }
            say("\(setting.name.lowercased()): \(setting.secret ? "<redacted>" : value.text)  # from \(value.source.rawValue)")
        }
        // Every value that cannot be used, in the order above.
        for found in settings.problems { problem(settings.line(for: found)) }
        let faulty = Set(settings.problems.compactMap(\.setting))

        // What `run` needs besides good values.
        if faulty.isDisjoint(with: ["HA_URL", "HA_TOKEN_FILE"]) {
            check {
                let (endpoint, _) = try settings.haConnection()
                say("home assistant: \(endpoint)")
            }
        }
        if settings.problems(in: [.api]).isEmpty {
            check {
                if let listen = try APISetup.address(settings, allowWithoutToken: noAPIAuth) {
                    say("api: \(listen.host):\(listen.port)")
                    // The choice, said plainly: the unmodified app sends no token.
                    var trusted = [settings.api.trustedNetworksText].compactMap { $0 }
                    if settings.api.trustsIngressProxy {
                        trusted.append("\(Settings.API.supervisorAddress) (Home Assistant's ingress proxy)")
                    }
                    if !trusted.isEmpty {
                        say("api: no token needed from \(trusted.joined(separator: ", ")) for what the unmodified app calls "
                            + "(registration, its own settings); everyone else needs a credential")
                    }
                    if settings.api.trustedNetworksText != nil {
                        // Issue 34: a trusted network opens registration to any device on it.
                        StandardStreams.err(redacted(
                            "printbridge: warning: API_TRUSTED_NETWORKS lets any device on those networks register without a "
                                + "credential; printer actions and phones' alerts need the phone's own (pair the app: printbridge pair), "
                                + "and once every phone has, remove API_TRUSTED_NETWORKS"))
                    }
                    say("api: \(settings.api.servesTLS ? "https (the agent's pinned certificate\(settings.api.certificateFile == nil ? "" : ": API_CERT_FILE"))" : "plain http")")
                    // Where phones are sent: the setting to change when that is a container's address.
                    let phones = try PairingAddress(settings, secure: settings.api.servesTLS)
                    say("api: pairing gives phones \(phones.home) ("
                        + (phones.homeIsGiven ? "API_HOME_URL" : "API_LISTEN with this machine's LAN address; in Docker or an add-on "
                            + "that is the container's: set API_HOME_URL to the address phones reach") + ")")
                    if let outside = phones.outside { say("api: and from outside \(outside) (API_OUTSIDE_URL)") }
                    try phones.checkFitsQRCode(secure: settings.api.servesTLS)
                    for warning in phones.warnings(settings, certificate: APITLSSetup.existingCertificate(settings)) {
                        StandardStreams.err(redacted("printbridge: warning: \(warning)"))
                    }
                } else {
                    say("api: off")
                }
            }
        }
        let dryRun = self.dryRun || settings.delivery.dryRun
        if dryRun && !settings.apns.isConfigured {
            say("apns: not configured (dry run)")
        } else {
            check {
                let sender = try APNsSetup.sender(settings, forRun: true)
                say("apns: \(sender.configuration.environment == .production ? "production" : "sandbox"), key \(sender.configuration.keyID) parses as P-256")
            }
        }
        let directory = StateDirectory.path(settings)
        if access(directory, W_OK | X_OK) != 0 {
            problem("state directory \(directory) is not writable (set STATE_DIR)")
        } else {
            say("state directory: \(directory)")
        }
        let mapped = settings.printers
        for printer in mapped {
            let roles = PrinterMap.roles.filter { printer.entities[$0.field] != nil }.map(\.name)
            say("mapped printer \(printer.prefix): \(roles.joined(separator: ", ")) (\(printer.profile.title))")
        }
        if let printersFrom {
            check {
                var listing = PrinterListing()
                var reader = HAFrameReader(matcher: settings.matcher)
                do {
                    var lines = try LineReader(path: printersFrom)
                    try lines.forEachLine { line, _ in
                        guard let messages = try? reader.messages(in: line) else { return }
                        for message in messages { listing.take(reader.inputs(from: message)) }
                    }
                } catch {
                    throw CommandFailure.noInput("--printers-from: \(error)")
                }
                listing.lines(mapped: mapped).forEach(say)
            }
        }
        if printersFromHA {
            do {
                let listing = try await Self.liveListing(settings)
                listing.lines(mapped: mapped).forEach(say)
            } catch { report(error) }
        }
        if failures > 0 {
            throw CommandFailure.config("\(failures) problem(s) in the configuration")
        }
        say("configuration OK")
    }

    /// Connects to Home Assistant like `run` and reads the printers from its
    /// registry and the states HA sends of them (at most 30 seconds).
    static func liveListing(_ settings: Settings) async throws -> PrinterListing {
        let (endpoint, token) = try settings.haConnection()
        let link = HomeAssistantLink(
            endpoint: endpoint, accessToken: token, caFile: settings.homeAssistant.caFile,
            reader: HAFrameReader(matcher: settings.matcher))
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { link.stop() }
        var listing = PrinterListing()
        var failure = "no states within 30 seconds"
        try RunCommand.start(link)
        for await event in link.events {
            switch event {
            case .printers(let inputs):
                listing.take(inputs)
                if listing.sawSnapshot { link.stop() }
            case .notice(.watching(entities: 0)):
                // The registry names no printer: HA is asked for nothing.
                listing.takeNoPrinters()
                link.stop()
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
