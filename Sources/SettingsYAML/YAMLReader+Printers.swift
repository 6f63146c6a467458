import PrintBridgeCore
import Yams

/// The `printers:` block read from YAML; what its keys mean is PrinterMap's.
extension YAMLReader {
    /// The printers by name, each a mapping of its entries:
    ///
    /// ```yaml
    /// printers:
    ///   ender3:
    ///     status: sensor.ender3_state
    /// ```
    ///
    /// or a list of such mappings, each with its `name:`
    /// (`printers: [{name: ender3, status: sensor.ender3_state}]`).
    mutating func printers(_ node: Node, keyMark: Mark?) throws(SettingsFileError) -> [MappedPrinter] {
        var printers: [MappedPrinter] = []
        var owners: [String: String] = [:]
        switch node {
        case .mapping(let mapping):
            for entry in try entries(of: mapping) {
                guard case .mapping(let body) = entry.value else {
                    throw fail(entry.value.mark ?? entry.keyMark, .printers(.needsEntries(prefix: entry.key)))
                }
                printers.append(try printer(entry.key, at: entry.keyMark, try entries(of: body), owners: &owners))
            }
        case .sequence(let sequence):
            for item in sequence {
                guard case .mapping(let body) = item else {
                    throw fail(item.mark, .wrongShape("printers", expected: "a mapping for each printer", found: Self.shape(of: item)))
                }
                let itemEntries = try entries(of: body)
                guard let name = itemEntries.first(where: { $0.key == "name" }) else { throw fail(item.mark, .printers(.unnamed)) }
                let prefix = try value(name.value, key: "printers.name", keyMark: name.keyMark)
                guard !printers.contains(where: { $0.prefix == prefix }) else {
                    throw fail(name.value.mark, .printers(.mappedTwice(prefix: prefix)))
                }
                printers.append(try printer(
                    prefix, at: name.value.mark, itemEntries.filter { $0.key != "name" }, owners: &owners))
            }
        default:
            guard try isNull(node, key: "printers") else {
                throw fail(node.mark, .wrongShape("printers", expected: "the printers by name below it", found: Self.shape(of: node)))
            }
        }
        guard !printers.isEmpty else { throw fail(keyMark, .printers(.noPrinters)) }
        return printers
    }

    /// One printer's entry: each key through PrinterMap.Entry, a mistake
    /// at the key (a key unknown) or at its value (a value wrong).
    private mutating func printer(_ prefix: String, at mark: Mark?, _ entries: [Entry], owners: inout [String: String])
        throws(SettingsFileError) -> MappedPrinter
    {
        var printer: PrinterMap.Entry
        do { printer = try PrinterMap.Entry(prefix: prefix) } catch { throw fail(mark, .printers(error)) }
        for entry in entries {
            let key = "printers.\(prefix).\(entry.key)"
            guard entry.key == "states" else {
                let text = try value(entry.value, key: key, keyMark: entry.keyMark)
                do { try printer.set(entry.key, to: text, owners: &owners) } catch {
                    if case .unknownKey = error { throw fail(entry.keyMark, .printers(error)) }
                    throw fail(entry.value.mark, .printers(error))
                }
                continue
            }
            guard case .mapping(let states) = entry.value else {
                if try isNull(entry.value, key: key) { throw fail(entry.keyMark, .printers(.noStates)) }
                throw fail(entry.value.mark, .wrongShape(
                    key, expected: "a mapping of status texts to words (\"Printing\": running)", found: Self.shape(of: entry.value)))
            }
            let stateEntries = try self.entries(of: states)
            guard !stateEntries.isEmpty else { throw fail(entry.keyMark, .printers(.noStates)) }
            for state in stateEntries {
                let word = try value(state.value, key: key + "." + state.key, keyMark: state.keyMark)
                do { try printer.map(state: state.key, to: word) } catch { throw fail(state.keyMark, .printers(error)) }
            }
        }
        do { return try printer.printer() } catch { throw fail(mark, .printers(error)) }
    }
}
