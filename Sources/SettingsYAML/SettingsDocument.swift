import PrintBridgeCore

/// The settings file read as YAML: the text of each setting, where it is,
/// and the printers mapped in its `printers:` block.
///
/// Read with libyaml rather than by hand: quoting, block scalars (`|`,
/// `>`), anchors, aliases and merge keys, flow and block collections as
/// YAML users write them for Home Assistant, and libyaml's own errors with
/// their line and column. Each key and value keeps where it starts
/// (`YAMLComposer`), so a problem found in a value later (a bad
/// `api_listen`) still names its place in the file. Scalars are text
/// whatever they look like: `true`, `8123` and `off` reach the settings as
/// written.
public struct SettingsDocument: Sendable {
    /// Setting names as the environment has them (HA_URL) to their text.
    public let values: [String: String]
    /// Where each setting's value is.
    public let positions: [String: SettingsPosition]
    /// The printers of the `printers:` block.
    public let printers: [MappedPrinter]

    /// Reads `text`. `known`: the settings' names (HA_URL), which the file
    /// writes in any case (ha_url); `lists`: those of them that take
    /// several values separated by commas (MILESTONES), which a YAML list
    /// gives as well. The key `printers` is the printers' block.
    public init(yaml text: String, path: String, known: [String], lists: Set<String> = []) throws(SettingsFileError) {
        var reader = YAMLReader(path: path)
        // libyaml skips a byte-order mark only when it detects the encoding
        // itself; named UTF-8 (as the text is), the mark would shift the
        // first key one column to the right of the next.
        let text = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        let root: YAMLNode?
        do { root = try YAMLComposer(text).document() } catch { throw reader.error(from: error, in: text) }
        var values: [String: String] = [:]
        var positions: [String: SettingsPosition] = [:]
        var printers: [MappedPrinter] = []
        // No document, or an empty one (only comments, or `---` alone): nothing set.
        guard let root, try !reader.isNull(root, key: "") else {
            (self.values, self.positions, self.printers) = ([:], [:], [])
            return
        }
        guard case .mapping(let pairs, _) = root else { throw reader.fail(root.position, .notSettings) }
        let knownNames = Set(known)
        var keyOf: [String: String] = [:]
        for entry in try reader.entries(of: pairs) {
            let name = entry.key.uppercased()
            guard knownNames.contains(name) || name == "PRINTERS" else {
                let keys = known.map { $0.lowercased() } + ["printers"]
                throw reader.fail(entry.keyPosition, .unknownSetting(entry.key, closest: ClosestName.to(entry.key, in: keys), known: keys))
            }
            // HA_URL and ha_url are one setting; the composer finds only the same spelling twice.
            guard keyOf[name] == nil else { throw reader.fail(entry.keyPosition, .setTwice(entry.key)) }
            keyOf[name] = entry.key
            if name == "PRINTERS" {
                printers = try reader.printers(entry.value, keyPosition: entry.keyPosition)
                continue
            }
            values[name] = try reader.value(entry.value, key: entry.key, keyPosition: entry.keyPosition, list: lists.contains(name))
            positions[name] = entry.value.position
        }
        (self.values, self.positions, self.printers) = (values, positions, printers)
    }
}
