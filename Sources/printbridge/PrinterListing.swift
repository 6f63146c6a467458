import PrintBridgeCore

/// The printers Home Assistant shows PrintBridge, and through which profile
/// each is read: what `check-config --printers-from FILE` and
/// `--printers-from-ha` print.
struct PrinterListing {
    private var cache = PrinterCache()
    private var entities: [String: [PrinterField: String]] = [:]
    private(set) var sawSnapshot = false

    /// Takes what the frame reader made of one message.
    mutating func take(_ inputs: [PrinterInput]) {
        for input in inputs {
            switch input.kind {
            case .entity(let match, let state, _):
                add(match, state)
            case .snapshot(let matched):
                sawSnapshot = true
                for entry in matched { add(entry.match, entry.state) }
            case .printerEvent, .notify:
                break
            }
        }
    }

    /// HA was asked for no entity: its registry names no printer.
    mutating func takeNoPrinters() { sawSnapshot = true }

    private mutating func add(_ match: EntityMatch, _ state: HAState) {
        entities[match.prefix, default: [:]][match.field] = state.entityID
        _ = cache.apply(match, state: state, at: state.lastUpdated)
    }

    /// One line per printer (those with a status entity), then its entities;
    /// mapped printers whose status entity HA does not have are said too.
    func lines(mapped: [MappedPrinter]) -> [String] {
        var lines: [String] = []
        let printers = entities.filter { $0.value[.status] != nil }.keys.sorted()
        for prefix in printers {
            let snapshot = cache[prefix] ?? PrinterSnapshot(prefix: prefix)
            let name = snapshot.displayName.map { " \"\($0)\"" } ?? ""
            let status = snapshot.status.map(\.rawValue) ?? "no status yet (\(snapshot.rawStatus ?? "unknown"))"
            lines.append("printer \(prefix)\(name): \(snapshot.profile.title) [\(snapshot.profile.name)], \(status)")
            let fields = entities[prefix, default: [:]].sorted { $0.key.rawValue < $1.key.rawValue }
            for (field, entity) in fields { lines.append("  \(field.rawValue): \(entity)") }
        }
        if printers.isEmpty { lines.append("printers: none found") }
        for printer in mapped {
            guard let camera = printer.camera else { continue }
            let known = entities[printer.prefix]?[.status] != nil ? "" : " (not a printer found in Home Assistant yet)"
            lines.append("printer \(printer.prefix): pictured by \(camera) (settings file)\(known)")
        }
        for printer in mapped where entities[printer.prefix]?[.status] == nil && printer.entities[.status] != nil {
            lines.append("printer \(printer.prefix) (mapped): its status entity \(printer.entities[.status] ?? "?") is not in Home Assistant")
        }
        return lines
    }
}
