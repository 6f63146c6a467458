import HomeAssistantLink
import Logging
import PrintBridgeCore

/// How `run` and `record` read the Home Assistant settings and word HA's news.
extension RunCommand {
    /// Starts the link's threads, or exits 71 with the system's reason.
    static func start(_ link: HomeAssistantLink) throws {
        do { try link.start() } catch {
            throw CommandFailure.system("\(error)")
        }
    }

    /// A positive number from the environment (seconds, megabytes), if set.
    static func seconds(_ name: String) throws -> Double? {
        guard let text = StandardStreams.environment(name) else { return nil }
        guard let value = Double(text), value > 0, value.isFinite else {
            throw CommandFailure.config("\(name) must be a positive number")
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
            throw CommandFailure.config("DRY_RUN must be true or false")
        }
    }

    static func haEndpoint() throws -> HAEndpoint {
        guard let url = StandardStreams.environment("HA_URL") else {
            throw CommandFailure.config("HA_URL not set (e.g. http://homeassistant.local:8123)")
        }
        do { return try HAEndpoint(url: url) } catch {
            throw CommandFailure.config("\(error)")
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
                throw CommandFailure.config("HA_TOKEN_FILE \(path) cannot be read")
            }
            let token = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            guard !token.isEmpty else {
                throw CommandFailure.config("HA_TOKEN_FILE \(path) is empty")
            }
            return token
        }
        let supervisor = StandardStreams.environment("SUPERVISOR_API").flatMap { try? HAEndpoint(url: $0) }
        if endpoint.host == "supervisor" || (endpoint.host == supervisor?.host && endpoint.port == supervisor?.port),
            let token = StandardStreams.environment("SUPERVISOR_TOKEN")
        {
            return token
        }
        throw CommandFailure.config("HA_TOKEN or HA_TOKEN_FILE not set (a long-lived access token from your HA profile)"
            + StandardStreams.credentialHint(for: "HA_TOKEN_FILE"))
    }
}
