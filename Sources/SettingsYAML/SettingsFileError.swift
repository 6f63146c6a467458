import PrintBridgeCore

/// Where something is in the settings file: line and column from 1, the
/// column counted in Unicode scalars (libyaml's marks).
public struct SettingsPosition: Hashable, Sendable, CustomStringConvertible {
    public let line: Int
    public let column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}

/// A settings file that cannot be used, with where the problem is:
/// `PATH:LINE:COLUMN: reason`, or `PATH: reason` when it has no place.
public struct SettingsFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public let path: String
    public let position: SettingsPosition?
    public let reason: Reason

    public init(path: String, position: SettingsPosition?, reason: Reason) {
        self.path = path
        self.position = position
        self.reason = reason
    }

    public var description: String { position.map { "\(path):\($0): \(reason)" } ?? "\(path): \(reason)" }

    /// What is wrong. Keys are named as the file writes them, nested ones
    /// with their path (`printers.ender3.status`).
    public enum Reason: Hashable, Sendable, CustomStringConvertible {
        /// The file cannot be read.
        case unreadable
        /// Not YAML: libyaml's own words.
        case syntax(String)
        /// YAML, but not a mapping of settings (a list, a lone value).
        case notSettings
        /// A key that is no setting, with the nearest one if there is one near.
        case unknownSetting(String, closest: String?, known: [String])
        /// A key given twice in one mapping (at its second place).
        case setTwice(String)
        /// `key:` with nothing after it, `~`, `null`, `""` or `[]`.
        case noValue(String)
        /// A list or a mapping where one value belongs, or a list's item
        /// that is not one value.
        case wrongShape(String, expected: String, found: Shape)
        /// A key that is a list or a mapping.
        case keyNotText
        /// A tag PrintBridge does not read: Home Assistant's `!secret`,
        /// `!include`, `!env_var`, or any other local tag.
        case unsupportedTag(String, tag: String)
        /// `<<` given something other than a mapping or a list of mappings.
        case badMerge
        /// Aliases that make merge keys expand past `YAMLReader.maximumEntries`.
        case tooLarge
        /// The `printers:` block's own words.
        case printers(PrinterMap.Problem)

        public var description: String {
            switch self {
            case .unreadable: "cannot be read"
            case .syntax(let words): "not valid YAML: \(words)"
            case .notSettings: "expected the settings as `key: value` lines"
            case let .unknownSetting(key, closest?, _): "unknown setting \"\(key)\" (did you mean \(closest)?)"
            case let .unknownSetting(key, nil, known): "unknown setting \"\(key)\" (known: \(known.joined(separator: ", ")))"
            case .setTwice(let key): "\"\(key)\" is set twice"
            case .noValue(let key): "\"\(key)\" has no value (remove the line to use the default)"
            case let .wrongShape(key, expected, found): "\"\(key)\" takes \(expected), not \(found.rawValue)"
            case .keyNotText: "a key must be a name, not a list or a mapping"
            case let .unsupportedTag(key, tag):
                "\"\(key)\" has the tag \(tag), which PrintBridge does not read (Home Assistant's !secret, !include and "
                    + "!env_var are not read here): write the value itself, or put a secret in a file and name the file (ha_token_file)"
            case .badMerge: "\"<<\" merges a mapping or a list of mappings (<<: *defaults)"
            case .tooLarge: "merge keys expand to more than \(YAMLReader.maximumEntries) entries"
            case .printers(let problem): "printers: \(problem)"
            }
        }
    }

    /// The shape of a YAML node, for `wrongShape`.
    public enum Shape: String, Hashable, Sendable {
        case value = "one value"
        case list = "a list"
        case mapping = "a mapping"
    }
}
