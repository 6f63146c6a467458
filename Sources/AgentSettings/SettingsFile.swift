import PrintBridgeCore
import SettingsYAML

#if canImport(Glibc)
import Glibc
#endif

/// The settings file: a YAML mapping whose keys are the environment
/// variables' names in lower case (`ha_url: http://ha.local:8123`), and the
/// `printers:` block. An environment variable of the same name wins over
/// the file.
///
/// Read as YAML by SettingsYAML (Yams). A key that is no setting, a key
/// twice, a key without a value, a list or mapping where one value belongs,
/// or YAML that does not parse is an error naming the file, line and column,
/// so a typo never passes silently.
public struct SettingsFile: Sendable {
    public typealias ParseError = SettingsFileError

    public let path: String
    /// Environment-style names (HA_URL) to values.
    public let values: [String: String]
    /// Where each setting's value is in the file.
    public let positions: [String: SettingsPosition]
    /// Printers mapped by hand (the `printers:` block; file only).
    public let printers: [MappedPrinter]

    public init(path: String, text: String) throws(ParseError) {
        self.path = path
        let document = try SettingsDocument(yaml: text, path: path, known: SettingCatalog.names, lists: SettingCatalog.listNames)
        values = document.values
        positions = document.positions
        printers = document.printers
    }

    /// Reads and parses a file; an unreadable or bad file is a ParseError.
    public static func load(path: String, read: (String) -> String? = SmallFile.read) throws(ParseError) -> SettingsFile {
        guard let text = read(path) else {
            throw ParseError(path: path, position: nil, reason: .unreadable)
        }
        return try SettingsFile(path: path, text: text)
    }
}

/// Reading the small files settings point to: the settings file, token files, credentials.
public enum SmallFile {
    /// The file's text (at most 1 MiB), or nil when it cannot be read.
    @Sendable public static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
