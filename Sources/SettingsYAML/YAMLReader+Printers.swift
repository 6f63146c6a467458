import PrintBridgeCore

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
    mutating func printers(_ node: YAMLNode, keyPosition: SettingsPosition) throws(SettingsFileError) -> [MappedPrinter] {
        var printers: [MappedPrinter] = []
        var owners: [String: String] = [:]
        switch node {
        case .mapping(let pairs, _):
            for entry in try entries(of: pairs) {
                guard case .mapping(let body, _) = entry.value else {
                    throw fail(entry.value.position, .printers(.needsEntries(prefix: entry.key)))
                }
                printers.append(try printer(entry.key, at: entry.keyPosition, try entries(of: body), owners: &owners))
            }
        case .sequence(let items, _):
            for item in items {
                guard case .mapping(let body, _) = item else {
                    throw fail(item.position, .wrongShape("printers", expected: "a mapping for each printer", found: Self.shape(of: item)))
                }
                let itemEntries = try entries(of: body)
                guard let name = itemEntries.first(where: { $0.key == "name" }) else { throw fail(item.position, .printers(.unnamed)) }
                let prefix = try value(name.value, key: "printers.name", keyPosition: name.keyPosition)
                guard !printers.contains(where: { $0.prefix == prefix }) else {
                    throw fail(name.value.position, .printers(.mappedTwice(prefix: prefix)))
                }
                printers.append(try printer(
                    prefix, at: name.value.position, itemEntries.filter { $0.key != "name" }, owners: &owners))
            }
        case .scalar:
            guard try isNull(node, key: "printers") else {
                throw fail(node.position, .wrongShape("printers", expected: "the printers by name below it", found: Self.shape(of: node)))
            }
        }
        guard !printers.isEmpty else { throw fail(keyPosition, .printers(.noPrinters)) }
        return printers
    }

    /// One printer's entry: each key through PrinterMap.Entry, a mistake
    /// at the key (a key unknown) or at its value (a value wrong).
    private mutating func printer(_ prefix: String, at position: SettingsPosition, _ entries: [Entry], owners: inout [String: String])
        throws(SettingsFileError) -> MappedPrinter
    {
        var printer: PrinterMap.Entry
        do { printer = try PrinterMap.Entry(prefix: prefix) } catch { throw fail(position, .printers(error)) }
        for entry in entries {
            let key = "printers.\(prefix).\(entry.key)"
            guard entry.key == "states" else {
                let text = try value(entry.value, key: key, keyPosition: entry.keyPosition)
                do { try printer.set(entry.key, to: text, owners: &owners) } catch {
                    if case .unknownKey = error { throw fail(entry.keyPosition, .printers(error)) }
                    throw fail(entry.value.position, .printers(error))
                }
                continue
            }
            guard case .mapping(let states, _) = entry.value else {
                if try isNull(entry.value, key: key) { throw fail(entry.keyPosition, .printers(.noStates)) }
                throw fail(entry.value.position, .wrongShape(
                    key, expected: "a mapping of status texts to words (\"Printing\": running)", found: Self.shape(of: entry.value)))
            }
            let stateEntries = try self.entries(of: states)
            guard !stateEntries.isEmpty else { throw fail(entry.keyPosition, .printers(.noStates)) }
            for state in stateEntries {
                let word = try value(state.value, key: key + "." + state.key, keyPosition: state.keyPosition)
                do { try printer.map(state: state.key, to: word) } catch { throw fail(state.keyPosition, .printers(error)) }
            }
        }
        do { return try printer.printer() } catch { throw fail(position, .printers(error)) }
    }
}
