/// ha-bambulab's HMS errors: `binary_sensor.<p>_hms_errors`, "on" or "off"
/// with the list in its attributes (pybambu's `HMSList.print_update`):
/// `Count`, and per error `N-Code` (`HMS_0700_2000_0002_0001`), `N-Error`
/// (the text, in Home Assistant's language), `N-Severity`, `N-Wiki`.
extension BambuLab {
    /// The printer's errors as the HMS entity lists them; nil: no
    /// information (unavailable, or attributes without a `Count` and a
    /// state other than "off").
    static func hmsErrors(_ state: HAState) -> [PrinterError]? {
        guard !EntityValue.carriesNoInformation(state.state) else { return nil }
        if let errors = hmsErrors(from: state.attributes) { return errors }
        return state.state.trimmingWhitespace.lowercased() == "off" ? [] : nil
    }

    /// The errors in an `hms_errors` entity's attributes; nil when they say
    /// nothing readable (no `Count`).
    public static func hmsErrors(from attributes: [String: JSONValue]) -> [PrinterError]? {
        guard let count = attributes["Count"]?.intValue ?? attributes["Count"]?.stringValue.flatMap({ Int($0) }),
            count >= 0
        else { return nil }
        var errors: [PrinterError] = []
        for index in stride(from: 1, through: min(count, 64), by: 1) {
            guard var code = attributes["\(index)-Code"]?.stringValue.map({ String($0.trimmingWhitespace) }), !code.isEmpty
            else { continue }
            if code.uppercased().hasPrefix("HMS_") { code = String(code.dropFirst(4)) }
            code = code.uppercased()
            // Bambu's codes are hex groups: anything else is not one.
            guard code.count <= 40, code.allSatisfy({ $0 == "_" || $0.isHexDigit }) else { continue }
            guard !errors.contains(where: { $0.code == code }) else { continue }
            let text = attributes["\(index)-Error"]?.stringValue.map { String($0.trimmingWhitespace) } ?? ""
            let severity = attributes["\(index)-Severity"]?.stringValue.flatMap {
                PrinterError.Severity(rawValue: $0.lowercased())
            } ?? severity(ofCode: code)
            errors.append(PrinterError(
                code: code, text: text, severity: severity,
                wikiURL: attributes["\(index)-Wiki"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }))
        }
        return errors
    }

    /// pybambu's `get_HMS_severity`: the code's third group (`0002` → serious).
    static func severity(ofCode code: String) -> PrinterError.Severity {
        let groups = code.split(separator: "_")
        guard groups.count == 4, let level = Int(groups[2], radix: 16) else { return .unknown }
        switch level {
        case 1: return .fatal
        case 2: return .serious
        case 3: return .common
        case 4: return .info
        default: return .unknown
        }
    }

    /// An AMS slot or the external spool.
    public struct FilamentLocation: Hashable, Sendable {
        public enum Kind: Hashable, Sendable { case ams, amsLite, amsHT, external }
        public var kind: Kind
        /// "A"…"H"; empty for the external spool.
        public var unit: String
        /// 1…4; 0 for the external spool.
        public var slot: Int
    }

    /// Where a filament error happened, read from its HMS code: the module
    /// (`07` AMS, `12` AMS Lite, `18` AMS HT), the unit (`00`… → A…, `FE`/`FF`
    /// the external spool) and the slot (`20`… → 1…), as the HMS texts spell
    /// them out ("AMS A Slot 1 filament has run out", for
    /// `0700_2000_0002_0001`). Nil for any other code.
    public static func filamentLocation(ofCode code: String) -> FilamentLocation? {
        let groups = code.split(separator: "_")
        guard groups.count == 4, groups[0].count == 4, groups[1].count == 4,
            let module = Int(groups[0].prefix(2), radix: 16), let unit = Int(groups[0].suffix(2), radix: 16),
            let slot = Int(groups[1].prefix(2), radix: 16)
        else { return nil }
        let kind: FilamentLocation.Kind
        switch module {
        case 0x07: kind = .ams
        case 0x12: kind = .amsLite
        case 0x18: kind = .amsHT
        default: return nil
        }
        if unit == 0xFE || unit == 0xFF { return FilamentLocation(kind: .external, unit: "", slot: 0) }
        guard unit < 8, (0x20...0x23).contains(slot) else { return nil }
        let letter = String(UnicodeScalar(UInt8(ascii: "A") + UInt8(unit)))
        return FilamentLocation(kind: kind, unit: letter, slot: slot - 0x20 + 1)
    }
}
