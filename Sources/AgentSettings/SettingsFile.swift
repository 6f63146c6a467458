import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// The settings file: a flat YAML mapping whose keys are the environment
/// variables' names in lower case (`ha_url: http://ha.local:8123`). An
/// environment variable of the same name wins over the file.
///
/// Only the part of YAML a settings file needs is accepted: `key: value`
/// lines, plain, 'single' or "double" quoted scalars, `#` comments and blank
/// lines. Anything else (nesting, lists, a key twice, an unknown key) is an
/// error naming the file and line, so a typo never passes silently.
public struct SettingsFile: Sendable {
    public typealias ParseError = SettingsFileParser.ParseError

    public let path: String
    /// Environment-style names (HA_URL) to values.
    public let values: [String: String]
    /// The line each setting is on.
    public let lines: [String: Int]
    /// Printers mapped by hand (the `printers:` block; file only).
    public let printers: [MappedPrinter]

    public init(path: String, text: String) throws(ParseError) {
        self.path = path
        let document = try SettingsFileParser.parseDocument(
            text, path: path, known: SettingCatalog.names, blocks: ["PRINTERS"])
        values = document.values
        lines = document.lines
        printers = try document.blocks["PRINTERS"].map { block throws(ParseError) in try PrinterMap.parse(block, path: path) } ?? []
    }

    /// Reads and parses a file; an unreadable or bad file is a ParseError.
    public static func load(path: String, read: (String) -> String? = SmallFile.read) throws(ParseError) -> SettingsFile {
        guard let text = read(path) else {
            throw ParseError(path: path, line: 0, reason: "cannot be read")
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
