import PrintBridgeCore
import ArgumentParser
import Synchronization

/// The settings file: a flat YAML mapping whose keys are the environment
/// variables' names in lower case (`ha_url: http://ha.local:8123`). An
/// environment variable of the same name wins over the file.
///
/// Only the part of YAML a settings file needs is accepted: `key: value`
/// lines, plain, 'single' or "double" quoted scalars, `#` comments and blank
/// lines. Anything else (nesting, lists, a key twice, an unknown key) is an
/// error naming the file and line, so a typo never passes silently.
struct ConfigFile: Sendable {
    /// One setting the agent knows.
    struct Setting: Sendable {
        let name: String
        let secret: Bool
        let help: String
    }

    /// Every setting, in the order check-config prints them.
    static let settings: [Setting] = [
        .init(name: "HA_URL", secret: false, help: "Home Assistant, http(s)://host:8123 or ws(s)://…/api/websocket"),
        .init(name: "HA_TOKEN", secret: true, help: "long-lived access token (prefer ha_token_file)"),
        .init(name: "HA_TOKEN_FILE", secret: false, help: "file holding the access token"),
        .init(name: "HA_CA_FILE", secret: false, help: "CA for a self-signed HA certificate"),
        .init(name: "HA_PING_INTERVAL", secret: false, help: "seconds between pings (30)"),
        .init(name: "HA_PONG_TIMEOUT", secret: false, help: "seconds to wait for a pong (10)"),
        .init(name: "HA_MAX_MESSAGE_MB", secret: false, help: "largest HA message (64)"),
        .init(name: "API_LISTEN", secret: false, help: "host:port of the app's API (0.0.0.0:3000) or off"),
        .init(name: "API_TOKEN", secret: true, help: "bearer token of the app's API (prefer api_token_file)"),
        .init(name: "API_TOKEN_FILE", secret: false, help: "file holding the API token"),
        .init(name: "API_TRUSTED_NETWORKS", secret: false,
              help: "networks whose clients need no API token, e.g. 192.168.1.0/24 (the unmodified app sends none)"),
        .init(name: "APNS_TEAM_ID", secret: false, help: "Apple team id"),
        .init(name: "APNS_KEY_ID", secret: false, help: "id of the .p8 key"),
        .init(name: "APNS_KEY_PATH", secret: false, help: "the .p8 key file"),
        .init(name: "APNS_BUNDLE_ID", secret: false, help: "the app's bundle id"),
        .init(name: "APNS_PRODUCTION", secret: false, help: "true for production APNs (false: sandbox)"),
        .init(name: "APNS_BASE_URL", secret: false, help: "APNs server override (tests)"),
        .init(name: "APNS_CA_FILE", secret: false, help: "CA for APNS_BASE_URL (tests)"),
        .init(name: "APNS_RETRY_MAX", secret: false,
              help: "seconds at most between retries of pushes APNs has not answered (30)"),
        .init(name: "DRY_RUN", secret: false,
              help: "true: print the pushes instead of sending them (as --dry-run), e.g. before the APNs key exists"),
        .init(name: "STATE_DIR", secret: false, help: "where the device store lives"),
        .init(name: "LOG_FORMAT", secret: false, help: "json or text"),
        .init(name: "LOG_LEVEL", secret: false, help: "trace, debug, info, notice, warning, error, critical"),
        .init(name: "MILESTONES", secret: false, help: "progress alerts, e.g. 25,50,75"),
        .init(name: "LIVE_ACTIVITY_INTERVAL", secret: false, help: "seconds between Live Activity updates"),
        .init(name: "START_SETTLE", secret: false, help: "seconds a start waits for the new print's file and values (5)"),
        .init(name: "CANCEL_WINDOW", secret: false, help: "seconds a failure waits for a cancel code that follows (10)"),
        .init(name: "FLICKER_WINDOW", secret: false, help: "seconds a print gone idle may come back as the same print (60)"),
        .init(name: "REASON_WINDOW", secret: false,
              help: "seconds a pause waits for its reason, and a new printer error for a pause it may belong to (3)"),
        .init(name: "BED_COOLED_BELOW", secret: false, help: "°C the bed must cool below for \"Ready to Remove\" after a finish (35)"),
        .init(name: "ALERT_LANGUAGE", secret: false,
              help: "language of alerts for phones that do not say theirs: en, de, fr or es (en)"),
        .init(name: "HEALTH_HA_GRACE", secret: false, help: "seconds HA may be away before /healthz is 503 (60)"),
    ]

    /// The value of every setting (those `include` picks) as the agent sees
    /// it now: environment, else file, else systemd credentials.
    static func effectiveValues(_ include: (String) -> Bool = { _ in true }) -> [String: String] {
        var values: [String: String] = [:]
        for setting in settings where include(setting.name) { values[setting.name] = StandardStreams.environment(setting.name) }
        return values
    }

    typealias ParseError = SettingsFileParser.ParseError

    let path: String
    /// Environment-style names (HA_URL) to values.
    let values: [String: String]
    /// The line each setting is on.
    let lines: [String: Int]

    /// Printers mapped by hand (the `printers:` block; file only).
    let printers: [MappedPrinter]

    init(path: String, text: String) throws(ParseError) {
        self.path = path
        let document = try SettingsFileParser.parseDocument(
            text, path: path, known: Self.settings.map(\.name), blocks: ["PRINTERS"])
        values = document.values
        lines = document.lines
        printers = try document.blocks["PRINTERS"].map { block throws(ParseError) in try PrinterMap.parse(block, path: path) } ?? []
    }

    /// The entity matcher for this process: the built-in profiles and the
    /// printers mapped in the settings file.
    static func matcher() -> EntityMatcher {
        EntityMatcher(mapped: current.withLock { $0?.printers ?? [] })
    }

    /// `message` with each setting that came from this file (not from the
    /// environment, which wins) named as the file names it: "API_LISTEN"
    /// becomes "api_listen (/etc/printbridge/printbridge.yaml:4)".
    func namingKeys(in message: String) -> String {
        var result = message
        for (name, line) in lines.sorted(by: { $0.key.count > $1.key.count })
        where StandardStreams.processEnvironment(name) == nil && result.contains(name) {
            result = Self.replacingWord(name, with: "\(name.lowercased()) (\(path):\(line))", in: result)
        }
        return result
    }

    /// Replaces `word` where it stands alone (not inside API_TOKEN_FILE for API_TOKEN).
    static func replacingWord(_ word: String, with replacement: String, in text: String) -> String {
        func isNamePart(_ character: Character?) -> Bool {
            guard let character else { return false }
            return character.isLetter || character.isNumber || character == "_"
        }
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix(word) {
                let end = text.index(index, offsetBy: word.count)
                let before = index == text.startIndex ? nil : text[text.index(before: index)]
                let after = end == text.endIndex ? nil : text[end]
                result += isNamePart(before) || isNamePart(after) ? word : replacement
                index = end
            } else {
                result.append(text[index])
                index = text.index(after: index)
            }
        }
        return result
    }

    /// Reads and parses a file; unreadable or bad files are a ParseError.
    static func load(path: String) throws(ParseError) -> ConfigFile {
        guard let text = StandardStreams.readSmallFile(path) else {
            throw ParseError(path: path, line: 0, reason: "cannot be read")
        }
        return try ConfigFile(path: path, text: text)
    }

    /// The file in use: from `--config`, else PRINTBRIDGE_CONFIG.
    static let current = Mutex<ConfigFile?>(nil)

    /// Loads `--config FILE` (or PRINTBRIDGE_CONFIG) for this process; a bad
    /// file is one line on stderr and exit 78.
    static func activate(_ option: String?) throws {
        guard let path = option ?? StandardStreams.processEnvironment("PRINTBRIDGE_CONFIG") else { return }
        do {
            let file = try load(path: path)
            current.withLock { $0 = file }
        } catch {
            throw CommandFailure.config("config file \(error)")
        }
    }
}


/// `--config FILE`, shared by the commands that read settings.
struct ConfigOption: ParsableArguments {
    @Option(name: .long, help: "Settings file (flat YAML; environment variables win). Default: $PRINTBRIDGE_CONFIG.")
    var config: String?

    func activate() throws { try ConfigFile.activate(config) }
}
