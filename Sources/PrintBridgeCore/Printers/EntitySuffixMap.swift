/// Which HA entities feed which printer field: entity-id suffixes (English
/// ha-bambulab names by default) and, where HA's entity registry is readable,
/// translation keys, which survive HA's localised entity ids.
///
/// Configurable so OctoPrint, Moonraker or PrusaLink entities can be mapped.
public struct EntitySuffixMap: Hashable, Sendable {
    /// Entity-id suffixes per field, each starting with "_".
    public var suffixes: [PrinterField: [String]]
    /// Registry translation keys per field.
    public var translationKeys: [PrinterField: [String]]
    /// Suffixes that look like a field's but are something else
    /// (`_target_nozzle_temperature` ends in `_nozzle_temperature`).
    public var ignoredSuffixes: [String]

    public init(
        suffixes: [PrinterField: [String]], translationKeys: [PrinterField: [String]] = [:],
        ignoredSuffixes: [String] = []
    ) {
        self.suffixes = suffixes
        self.translationKeys = translationKeys
        self.ignoredSuffixes = ignoredSuffixes
    }

    /// ha-bambulab's English entity names and translation keys.
    public static let haBambulab = EntitySuffixMap(
        suffixes: [
            .status: ["_print_status"],
            .progress: ["_print_progress"],
            .currentLayer: ["_current_layer"],
            .totalLayers: ["_total_layer_count"],
            .remainingTime: ["_remaining_time"],
            .nozzleTemp: ["_nozzle_temperature"],
            .bedTemp: ["_bed_temperature"],
            .taskName: ["_task_name"],
            .subtaskName: ["_subtask_name"],
            .gcodeFilename: ["_gcode_filename"],
            .stage: ["_current_stage"],
            .error: ["_print_error"],
        ],
        translationKeys: [
            .status: ["print_status"],
            .progress: ["print_progress"],
            .currentLayer: ["current_layer"],
            .totalLayers: ["total_layers", "total_layer_count"],
            .remainingTime: ["remaining_time"],
            .nozzleTemp: ["nozzle_temp", "nozzle_temperature"],
            .bedTemp: ["bed_temp", "bed_temperature"],
            .taskName: ["task_name"],
            .subtaskName: ["subtask_name"],
            .gcodeFilename: ["gcode_file", "gcode_filename"],
            .stage: ["stage", "current_stage"],
            .error: ["print_error"],
        ],
        ignoredSuffixes: ["_target_nozzle_temperature", "_target_bed_temperature"]
    )

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
