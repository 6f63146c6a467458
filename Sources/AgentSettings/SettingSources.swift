#if canImport(Glibc)
import Glibc
#endif

/// Where settings come from, highest first: a command's own options, the
/// environment, the settings file, systemd's credentials. `Settings` reads
/// them once; nothing else does.
public struct SettingSources: Sendable {
    /// Values a command's options give (replay's `--milestones`, say).
    public var commandLine: [String: String]
    /// The process environment (empty values left out), read once.
    public var environment: [String: String]
    public var file: SettingsFile?
    /// Reads a file a setting names: token files, credentials.
    public var read: @Sendable (String) -> String?

    public init(
        commandLine: [String: String] = [:], environment: [String: String], file: SettingsFile? = nil,
        read: @escaping @Sendable (String) -> String? = SmallFile.read
    ) {
        self.commandLine = commandLine.filter { !$0.value.isEmpty }
        self.environment = environment.filter { !$0.value.isEmpty }
        self.file = file
        self.read = read
    }

    /// This process's environment, with `file` and `commandLine`.
    public static func process(file: SettingsFile?, commandLine: [String: String] = [:]) -> SettingSources {
        SettingSources(commandLine: commandLine, environment: processEnvironment(), file: file)
    }

    /// The same sources with the settings file read again (SIGHUP); the
    /// environment a process started with does not change.
    public func rereadingFile() throws(SettingsFile.ParseError) -> SettingSources {
        var sources = self
        if let path = file?.path { sources.file = try SettingsFile.load(path: path, read: read) }
        return sources
    }

    /// The value `name` has and where it comes from, or nil when unset.
    func value(of name: String) -> Settings.Value? {
        if let text = commandLine[name] { return .init(text: text, source: .commandLine) }
        if let text = environment[name] { return .init(text: text, source: .environment) }
        if let text = file?.values[name] { return .init(text: text, source: .file) }
        if let path = credential(for: name) { return .init(text: path, source: .credentials) }
        return nil
    }

    /// systemd's credentials (LoadCredential=ha-token:…) stand for the path
    /// settings of the secrets.
    public static let credentialNames = ["HA_TOKEN_FILE": "ha-token", "API_TOKEN_FILE": "api-token", "APNS_KEY_PATH": "apns-key.p8"]

    /// The credential's path for a secret's path setting, when systemd gave one.
    private func credential(for name: String) -> String? {
        guard let file = Self.credentialNames[name], let directory = environment["CREDENTIALS_DIRECTORY"] else { return nil }
        if name == "HA_TOKEN_FILE", environment["HA_TOKEN"] != nil { return nil }
        if name == "API_TOKEN_FILE", environment["API_TOKEN"] != nil { return nil }
        let path = directory + "/" + file
        // A blank credential is the unit's default (SetCredential=name:\n)
        // for a file that is not there yet: no credential.
        guard let text = read(path), text.contains(where: { !$0.isWhitespace }) else { return nil }
        return path
    }


    /// Every environment variable that is set and not empty.
    static func processEnvironment() -> [String: String] {
        var values: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "="), text.index(after: equals) != text.endIndex {
                values[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        return values
    }
}
