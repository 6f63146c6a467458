/// One of a printer's current HMS errors, as ha-bambulab's
/// `binary_sensor.<p>_hms_errors` lists them in its attributes (pybambu's
/// `HMSList.print_update`): `Count`, and per error `N-Code`
/// (`HMS_0700_2000_0002_0001`), `N-Error` (the text, in Home Assistant's
/// language), `N-Severity`, `N-Wiki`.
public struct HMSError: Hashable, Sendable {
    /// The code without `HMS_`: `0700_2000_0002_0001`.
    public var code: String
    public var text: String
    public var severity: Severity
    public var wikiURL: String?

    /// pybambu's `HMS_SEVERITY_LEVELS`, by the code's third group.
    public enum Severity: String, Hashable, Sendable, Comparable {
        case fatal, serious, common, info, unknown

        /// Fatal and serious errors break through Focus (`time-sensitive`).
        public var isUrgent: Bool { self == .fatal || self == .serious }

        private var rank: Int {
            switch self {
            case .fatal: return 0
            case .serious: return 1
            case .common: return 2
            case .info: return 3
            case .unknown: return 4
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public init(code: String, text: String, severity: Severity, wikiURL: String? = nil) {
        self.code = code
        self.text = text
        self.severity = severity
        self.wikiURL = wikiURL
    }

    /// The errors in an `hms_errors` entity's attributes; nil when they say
    /// nothing readable (no `Count`).
    public static func list(from attributes: [String: JSONValue]) -> [HMSError]? {
        guard let count = attributes["Count"]?.intValue ?? attributes["Count"]?.stringValue.flatMap({ Int($0) }),
            count >= 0
        else { return nil }
        var errors: [HMSError] = []
        for index in stride(from: 1, through: min(count, 64), by: 1) {
            guard var code = attributes["\(index)-Code"]?.stringValue.map({ String($0.trimmingWhitespace) }), !code.isEmpty
            else { continue }
            if code.uppercased().hasPrefix("HMS_") { code = String(code.dropFirst(4)) }
            code = code.uppercased()
            // Bambu's codes are hex groups: anything else is not one.
            guard code.count <= 40, code.allSatisfy({ $0 == "_" || $0.isHexDigit }) else { continue }
            guard !errors.contains(where: { $0.code == code }) else { continue }
            let text = attributes["\(index)-Error"]?.stringValue.map { String($0.trimmingWhitespace) } ?? ""
            let severity = attributes["\(index)-Severity"]?.stringValue.flatMap { Severity(rawValue: $0.lowercased()) }
                ?? severity(ofCode: code)
            errors.append(HMSError(
                code: code, text: text, severity: severity,
                wikiURL: attributes["\(index)-Wiki"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }))
        }
        return errors
    }

    /// pybambu's `get_HMS_severity`: the code's third group (`0002` → serious).
    static func severity(ofCode code: String) -> Severity {
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

    /// Where a filament error happened, read from the code: the module
    /// (`07` AMS, `12` AMS Lite, `18` AMS HT), the unit (`00`… → A…, `FE`/`FF`
    /// the external spool) and the slot (`20`… → 1…), as the HMS texts spell
    /// them out ("AMS A Slot 1 filament has run out", for
    /// `0700_2000_0002_0001`). Nil for any other code.
    public var filamentLocation: FilamentLocation? {
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

/// An AMS slot or the external spool.
public struct FilamentLocation: Hashable, Sendable {
    public enum Kind: Hashable, Sendable { case ams, amsLite, amsHT, external }
    public var kind: Kind
    /// "A"…"H"; empty for the external spool.
    public var unit: String
    /// 1…4; 0 for the external spool.
    public var slot: Int
}
