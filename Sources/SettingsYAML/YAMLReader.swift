import PrintBridgeCore

/// Walks the nodes composed from the settings file: merge keys applied,
/// scalars as the settings' text, every problem with its position.
struct YAMLReader {
    let path: String
    /// Mapping entries looked at so far, merged ones included: aliases can
    /// make merge keys expand exponentially (a "billion laughs"), and a
    /// settings file has a few dozen entries.
    private var visited = 0
    static let maximumEntries = 10_000

    init(path: String) { self.path = path }

    func fail(_ position: SettingsPosition?, _ reason: SettingsFileError.Reason) -> SettingsFileError {
        SettingsFileError(path: path, position: position, reason: reason)
    }

    /// A key of a mapping, with its value.
    struct Entry {
        let key: String
        let keyPosition: SettingsPosition
        let value: YAMLNode
    }

    /// A mapping's entries with its merge keys (`<<: *defaults`, or a list
    /// of aliases) applied as YAML's merge type says
    /// (https://yaml.org/type/merge.html): the mapping's own keys in order,
    /// then each merged key it does not have, an earlier merged mapping
    /// winning over a later one.
    mutating func entries(of pairs: [(key: YAMLNode, value: YAMLNode)]) throws(SettingsFileError) -> [Entry] {
        var own: [Entry] = []
        var merged: [Entry] = []
        var ownKeys: Set<String> = []
        var mergedKeys: Set<String> = []
        for (key, value) in pairs {
            visited += 1
            guard visited <= Self.maximumEntries else { throw fail(key.position, .tooLarge) }
            guard case .scalar(let scalar) = key else { throw fail(key.position, .keyNotText) }
            guard scalar.text == "<<", scalar.style == .plain, scalar.tag.isEmpty else {
                try checkTag(of: scalar, key: scalar.text)
                own.append(Entry(key: scalar.text, keyPosition: scalar.position, value: value))
                ownKeys.insert(scalar.text)
                continue
            }
            let sources: [YAMLNode]
            switch value {
            case .mapping: sources = [value]
            case .sequence(let items, _): sources = items
            default: throw fail(value.position, .badMerge)
            }
            for source in sources {
                guard case .mapping(let sourcePairs, _) = source else { throw fail(source.position, .badMerge) }
                for entry in try entries(of: sourcePairs) where mergedKeys.insert(entry.key).inserted {
                    merged.append(entry)
                }
            }
        }
        return own + merged.filter { !ownKeys.contains($0.key) }
    }

    /// The spellings of null in YAML's core schema, as plain scalars.
    static let nulls: Set<String> = ["", "~", "null", "Null", "NULL"]

    /// A scalar's text as a setting takes it, or nil for YAML's null.
    /// Plain, quoted and block scalars are all text (`8123`, `true` as
    /// written), without the line breaks they end with: `|` and `>` keep
    /// one, and no setting's value has one. (Whatever the style, so that the
    /// same text written as `"x\n"` or as a `|` block reads the same.)
    func text(of scalar: YAMLScalar, key: String) throws(SettingsFileError) -> String? {
        try checkTag(of: scalar, key: key)
        if scalar.tag == "tag:yaml.org,2002:null" { return nil }
        if scalar.style == .plain, scalar.tag.isEmpty, Self.nulls.contains(scalar.text) { return nil }
        var text = Substring(scalar.text)
        while text.last == "\n" { text.removeLast() }
        return String(text)
    }

    /// YAML's own tags (`!!str 8123`) are fine; a local tag (`!secret`,
    /// `!include`) asks for something PrintBridge does not do.
    func checkTag(of scalar: YAMLScalar, key: String) throws(SettingsFileError) {
        let tag = scalar.tag
        guard tag.isEmpty || tag == "!" || tag.hasPrefix("tag:yaml.org,2002:") else {
            throw fail(scalar.position, .unsupportedTag(key, tag: tag))
        }
    }

    /// One value, or with `list` a list of values joined by commas (as the
    /// setting's text from the environment would be); null, an empty text
    /// and an empty list are no value.
    func value(_ node: YAMLNode, key: String, keyPosition: SettingsPosition, list: Bool = false) throws(SettingsFileError) -> String {
        switch node {
        case .scalar(let scalar):
            guard let text = try text(of: scalar, key: key), !text.isEmpty else { throw fail(keyPosition, .noValue(key)) }
            return text
        case .sequence(let items, _) where list:
            var texts: [String] = []
            for item in items {
                guard case .scalar(let scalar) = item else {
                    throw fail(item.position, .wrongShape(key, expected: "a list of values", found: Self.shape(of: item)))
                }
                guard let text = try text(of: scalar, key: key), !text.isEmpty else { throw fail(item.position, .noValue(key)) }
                texts.append(text)
            }
            guard !texts.isEmpty else { throw fail(keyPosition, .noValue(key)) }
            return texts.joined(separator: ",")
        default:
            throw fail(node.position, .wrongShape(
                key, expected: list ? "one value or a list of values" : "one value", found: Self.shape(of: node)))
        }
    }

    /// Whether `node` is null (`key:` with nothing after it).
    func isNull(_ node: YAMLNode, key: String) throws(SettingsFileError) -> Bool {
        guard case .scalar(let scalar) = node else { return false }
        return try text(of: scalar, key: key) == nil
    }

    static func shape(of node: YAMLNode) -> SettingsFileError.Shape {
        switch node {
        case .scalar: .value
        case .sequence: .list
        case .mapping: .mapping
        }
    }
}
