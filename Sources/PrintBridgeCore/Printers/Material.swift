/// What a printer reports of the material a print uses, as its integration
/// shows it. Everything is optional: a printer that does not report a
/// reading has none (never a 0 standing in for "unknown").
public struct Material: Hashable, Sendable, Codable {
    /// The filament's type as the printer names it ("PLA", "PETG-CF").
    public var type: String?
    /// Its colour as "#RRGGBB" or "#RRGGBBAA", upper case.
    public var color: String?

    public init(type: String? = nil, color: String? = nil) {
        self.type = type
        self.color = color
    }

    /// A type or colour as a printer writes it, or nil when it says nothing
    /// ("", "unknown").
    static func reading(_ text: String?) -> String? {
        guard let text = text?.trimmingWhitespace, !text.isEmpty,
            !EntityValue.carriesNoInformation(String(text).lowercased())
        else { return nil }
        return String(text)
    }

    /// A colour in one spelling: "#" and upper-case hex; nil when it is no
    /// colour (no hex digits at all, as a "#" alone).
    static func color(_ text: String?) -> String? {
        guard let text = reading(text) else { return nil }
        let hex = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit) else { return nil }
        return "#" + hex.uppercased()
    }
}

/// The material one print used: of one spool, or the print's total where
/// the printer does not say which spool.
public struct MaterialUse: Hashable, Sendable, Codable {
    public var type: String?
    public var color: String?
    public var grams: Double?
    public var meters: Double?

    public init(type: String? = nil, color: String? = nil, grams: Double? = nil, meters: Double? = nil) {
        self.type = type
        self.color = color
        self.grams = grams
        self.meters = meters
    }

    public var material: Material { Material(type: type, color: color) }
}

/// A spool feeding the printer: which one, by its integration's name for it
/// ("" where the integration does not say), and what is on it.
public struct Spool: Hashable, Sendable, Codable {
    public var name: String
    public var material: Material

    public init(name: String, material: Material) {
        self.name = name
        self.material = material
    }
}

/// The material readings of the print under way.
public struct MaterialReadings: Hashable, Sendable {
    /// The print's total weight (grams) and length (meters), where reported.
    public var grams: Double?
    public var meters: Double?
    /// Per spool, by the spool's name, where the integration breaks them
    /// down (`PrinterProfile.spoolAmounts`).
    public var gramsBySpool: [String: Double] = [:]
    public var metersBySpool: [String: Double] = [:]
    /// The spool feeding the printer now (`PrinterProfile.readActiveSpool`).
    public var activeSpool: Spool?

    public init() {}

    /// What the print used, given the spools seen feeding it: one entry per
    /// spool where the printer broke the totals down by spool, else one for
    /// the whole print (its material the one spool seen, where only one
    /// was); empty when the printer reported no amount.
    public func uses(spoolsSeen: [String: Material]) -> [MaterialUse] {
        var seen = spoolsSeen
        if let active = activeSpool { seen[active.name] = seen[active.name] ?? active.material }
        let spools = Set(gramsBySpool.keys).union(metersBySpool.keys).sorted()
        let materials = Set(seen.values)
        // One material seen through the whole print is the print's, whichever spool it came from.
        let only = materials.count == 1 ? materials.first : nil
        if !spools.isEmpty {
            return spools.map { name in
                let material = seen[name] ?? (spools.count == 1 ? only : nil)
                return MaterialUse(
                    type: material?.type, color: material?.color, grams: gramsBySpool[name],
                    meters: metersBySpool[name])
            }
        }
        guard grams != nil || meters != nil else { return [] }
        return [MaterialUse(type: only?.type, color: only?.color, grams: grams, meters: meters)]
    }

    /// An amount as a printer writes it: a positive number; 0 is "not known
    /// yet" (an integration may start a print's amounts at 0 until it knows
    /// them, or write 0 when not printing).
    static func amount(_ value: JSONValue?) -> Double? {
        guard let value else { return nil }
        let number = value.numberValue ?? value.stringValue.flatMap { EntityValue.number($0) }
        guard let number, number.isFinite, number > 0 else { return nil }
        return number
    }

    /// Forgets a material reading (field `materialWeight` or
    /// `materialLength`) with its amounts per spool: it is another print's.
    mutating func forget(_ field: PrinterField) {
        switch field {
        case .materialWeight: grams = nil; gramsBySpool = [:]
        case .materialLength: meters = nil; metersBySpool = [:]
        default: break
        }
    }
}

extension MaterialUse {
    /// As the API and the store write it: `{"type","color","grams","meters"}`,
    /// a reading the printer did not give is null.
    public var json: String {
        func number(_ value: Double?) -> String {
            value.map { JSONText.encode(.number(($0 * 100).rounded() / 100)) } ?? "null"
        }
        return JSONText.object([
            ("type", type.map(JSONText.quoted) ?? "null"), ("color", color.map(JSONText.quoted) ?? "null"),
            ("grams", number(grams)), ("meters", number(meters)),
        ])
    }

    public static func json(_ uses: [MaterialUse]) -> String { "[" + uses.map(\.json).joined(separator: ",") + "]" }

    /// Uses read back from `json(_:)`; what is not such a list reads as none.
    public static func parse(_ text: String) -> [MaterialUse] {
        guard let items = (try? JSONParser.parse(text))?.arrayValue else { return [] }
        return items.compactMap { item in
            guard item.objectValue != nil else { return nil }
            return MaterialUse(
                type: item["type"]?.stringValue, color: item["color"]?.stringValue,
                grams: item["grams"]?.numberValue, meters: item["meters"]?.numberValue)
        }
    }
}
