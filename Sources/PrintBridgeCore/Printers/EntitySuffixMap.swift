/// Which HA entities feed which printer field: entity-id suffixes and, where
/// HA's entity registry is readable, translation keys, which survive HA's
/// localised entity ids.
///
/// One integration's names; `PrinterProfile` adds what its states mean.
public struct EntitySuffixMap: Hashable, Sendable {
    /// Entity-id suffixes per field, each starting with "_".
    public var suffixes: [PrinterField: [String]]
    /// Registry translation keys per field.
    public var translationKeys: [PrinterField: [String]]
    /// Suffixes that look like a field's but are something else
    /// (`_left_nozzle_temperature` ends in `_nozzle_temperature`).
    public var ignoredSuffixes: [String]
    /// The integrations (entity-registry `platform`) whose translation keys
    /// these are; other integrations' entities are never matched by key
    /// (Creality's or an appliance's `remaining_time` is not a printer's).
    /// Empty: any platform.
    public var platforms: Set<String>

    public init(
        suffixes: [PrinterField: [String]], translationKeys: [PrinterField: [String]] = [:],
        ignoredSuffixes: [String] = [], platforms: Set<String> = []
    ) {
        self.suffixes = suffixes
        self.translationKeys = translationKeys
        self.ignoredSuffixes = ignoredSuffixes
        self.platforms = platforms
    }

    /// Problems that would make matching ambiguous or impossible, in words a user can act on.
    public func problems() -> [String] {
        var problems: [String] = []
        var owner: [String: String] = [:]
        if suffixes[.status, default: []].isEmpty {
            problems.append("no suffix is mapped to the print status; no printer can be found")
        }
        for field in PrinterField.allCases {
            for suffix in suffixes[field, default: []] {
                if !suffix.hasPrefix("_") || suffix.count < 2 {
                    problems.append("suffix \"\(suffix)\" for \(field.rawValue) must start with \"_\" and name something")
                }
                if let other = owner[suffix] {
                    problems.append("suffix \"\(suffix)\" is mapped to both \(other) and \(field.rawValue)")
                }
                owner[suffix] = field.rawValue
            }
        }
        for suffix in ignoredSuffixes where owner[suffix] != nil {
            problems.append("suffix \"\(suffix)\" is both ignored and mapped to \(owner[suffix]!)")
        }
        return problems
    }
}
