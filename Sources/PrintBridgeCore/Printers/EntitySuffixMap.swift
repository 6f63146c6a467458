/// Which HA entities feed which printer field: entity-id suffixes (English
/// ha-bambulab names by default) and, where HA's entity registry is readable,
/// translation keys, which survive HA's localised entity ids.
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

    /// ha-bambulab's English entity names and translation keys, as its
    /// `definitions.py` and `translations/en.json` give them: the entity id
    /// is the device name and the English entity name, slugified
    /// (`subtask_name` is named "Task name", so its id ends `_task_name`;
    /// `target_nozzle_temp` is "Nozzle target temperature").
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
            .hmsErrors: ["_hms_errors"],
        ],
        translationKeys: [
            .status: ["print_status"],
            .progress: ["print_progress"],
            .currentLayer: ["current_layer"],
            .totalLayers: ["total_layers", "total_layer_count"],
            .remainingTime: ["remaining_time"],
            .nozzleTemp: ["nozzle_temp", "nozzle_temperature"],
            .bedTemp: ["bed_temp", "bed_temperature"],
            .taskName: ["subtask_name", "task_name"],
            .gcodeFilename: ["gcode_file", "gcode_filename"],
            .stage: ["stage", "current_stage"],
            .error: ["print_error"],
            .hmsErrors: ["hms_errors"],
        ],
        // Dual-nozzle printers (H2D) also have a temperature per nozzle;
        // `_nozzle_temperature` is the active one. Targets are not readings.
        ignoredSuffixes: [
            "_left_nozzle_temperature", "_right_nozzle_temperature", "_nozzle_target_temperature",
            "_left_nozzle_target_temperature", "_right_nozzle_target_temperature", "_bed_target_temperature",
            // Not ha-bambulab's, but targets all the same in other namings.
            "_target_nozzle_temperature", "_target_bed_temperature",
        ],
        platforms: ["bambu_lab"]
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
