import HomeAssistantLink
import Logging
import PrintBridgeCore

/// How `run` and `record` read the Home Assistant settings and word HA's news.
extension RunCommand {
    /// What to check when a wss:// connection fails in TLS.
    static func hint(_ cause: DisconnectCause, _ endpoint: HAEndpoint) -> String {
        guard endpoint.secure, cause.isTLSFailure else { return "" }
        return " (HA's certificate could not be verified with the system's CA certificates; "
            + "for a self-signed certificate, name its CA in HA_CA_FILE)"
    }

    /// Starts the link's threads, or exits 71 with the system's reason.
    static func start(_ link: HomeAssistantLink) throws {
        do { try link.start() } catch {
            StandardStreams.err("printbridge: \(error)")
            throw ExitCodes.system
        }
    }

    /// A positive number from the environment (seconds, megabytes), if set.
    static func seconds(_ name: String) throws -> Double? {
        guard let text = StandardStreams.environment(name) else { return nil }
        guard let value = Double(text), value > 0, value.isFinite else {
            StandardStreams.err("printbridge: \(name) must be a positive number")
            throw ExitCodes.config
        }
        return value
    }

    /// DRY_RUN (true/false, yes/no, on/off, 1/0): run as with --dry-run,
    /// e.g. under systemd before the APNs key exists.
    static func dryRunSetting() throws -> Bool {
        guard let text = StandardStreams.environment("DRY_RUN") else { return false }
        switch text.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default:
            StandardStreams.err("printbridge: DRY_RUN must be true or false")
            throw ExitCodes.config
        }
    }

    static func describe(_ notice: HASession.Notice) -> String? {
        switch notice {
        case .authenticated(let version): return "authenticated with Home Assistant \(version ?? "")"
        case .authRejected(let message):
            return "Home Assistant rejected the access token (\(message ?? "auth_invalid")); "
                + "check HA_TOKEN / HA_TOKEN_FILE; trying again in 5 minutes"
        case .live: return "subscribed to state changes"
        case .requestFailed(let id, let code, let message):
            return "Home Assistant request \(id) failed: \(code ?? "") \(message ?? "")"
        case .pongMissing: return "no pong from Home Assistant; reconnecting"
        case .reconnectScheduled(let seconds, let attempt):
            return "reconnecting in \(Int(seconds.rounded(.up))) s (attempt \(attempt))"
        }
    }

    static func haEndpoint() throws -> HAEndpoint {
        guard let url = StandardStreams.environment("HA_URL") else {
            StandardStreams.err("printbridge: HA_URL not set (e.g. http://homeassistant.local:8123)")
            throw ExitCodes.config
        }
        do { return try HAEndpoint(url: url) } catch {
            StandardStreams.err("printbridge: \(error)")
            throw ExitCodes.config
        }
    }

    /// HA_TOKEN, else the contents of HA_TOKEN_FILE, else SUPERVISOR_TOKEN for
    /// the Supervisor's endpoint (host `supervisor`, or the host and port of
    /// SUPERVISOR_API, where bashio sends the same token). Never from the
    /// command line.
    static func haToken(endpoint: HAEndpoint) throws -> String {
        if let token = StandardStreams.environment("HA_TOKEN") { return token }
        if let path = StandardStreams.environment("HA_TOKEN_FILE") {
            guard let text = StandardStreams.readSmallFile(path) else {
                StandardStreams.err("printbridge: HA_TOKEN_FILE \(path) cannot be read")
                throw ExitCodes.config
            }
            let token = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            guard !token.isEmpty else {
                StandardStreams.err("printbridge: HA_TOKEN_FILE \(path) is empty")
                throw ExitCodes.config
            }
            return token
        }
        let supervisor = StandardStreams.environment("SUPERVISOR_API").flatMap { try? HAEndpoint(url: $0) }
        if endpoint.host == "supervisor" || (endpoint.host == supervisor?.host && endpoint.port == supervisor?.port),
            let token = StandardStreams.environment("SUPERVISOR_TOKEN")
        {
            return token
        }
        StandardStreams.err("printbridge: HA_TOKEN or HA_TOKEN_FILE not set (a long-lived access token from your HA profile)"
            + StandardStreams.credentialHint(for: "HA_TOKEN_FILE"))
        throw ExitCodes.config
    }

    /// How loud a protocol notice is.
    static func level(_ notice: HASession.Notice) -> Logger.Level {
        switch notice {
        case .authenticated, .live, .reconnectScheduled: return .info
        case .requestFailed, .pongMissing: return .warning
        case .authRejected: return .error
        }
    }
}
