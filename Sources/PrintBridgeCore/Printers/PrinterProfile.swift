/// How one Home Assistant integration shows a printer: which of its entities
/// play which part, and what its status texts mean.
///
/// Built in: ha-bambulab, HA core's OctoPrint and PrusaLink integrations, and
/// the Moonraker (Klipper) custom integration; each fact below names the
/// source file it was taken from. A printer mapped by hand in the settings
/// file (`printers:`) gets a profile of its own.
public struct PrinterProfile: Sendable, CustomStringConvertible {
    /// Short name, used in the settings file and in logs: `bambulab`,
    /// `octoprint`, `prusalink`, `moonraker`, or a mapped printer's.
    public var name: String
    /// The integration as users know it.
    public var title: String
    /// Entity-id suffixes and registry translation keys per field, and the
    /// registry platforms whose entities these are.
    public var entities: EntitySuffixMap
    /// Whether the fields other than the status match by suffix only beside
    /// a status entity of this profile: `_progress` or `_filename` alone
    /// could be anyone's.
    public var siblingsNeedStatus: Bool
    /// Status texts (lower case, spaces kept) and what they mean. A text not
    /// listed carries no information about the print.
    public var statuses: [String: PrintStatus]
    /// Whether a print that goes straight back to idle has ended: complete
    /// when the last progress reading is 100 %, else cancelled (OctoPrint
    /// shows a finish as Printing → Operational when its 30 s poll misses
    /// "Finishing").
    public var idleEndsPrint: Bool
    /// A status entity named after the device alone (PrusaLink's
    /// `sensor.<device>`) has no suffix to match: without the registry it is
    /// recognised by its `options` attribute (HA writes an ENUM sensor's
    /// options into its state), which must be exactly these.
    public var statusOptions: Set<String>?
    /// Whether a failure may be a cancel whose code follows it (ha-bambulab
    /// writes the status and the print error in no fixed order), so it waits
    /// `CANCEL_WINDOW` before it is told.
    public var failureMayBeCancel: Bool
    /// Whether progress, layers and time left read 0 whenever the printer
    /// is not printing (Moonraker's `empty_result_when_not_printing`): such
    /// a 0 is no reading, and a pause or an end keeps the last real ones.
    public var zeroWhenNotPrinting: Bool
    /// The integration's own bus events about a print (by their `type`) and
    /// what each says.
    public var busEvents: [String: PrinterBusEvent]

    public init(
        name: String, title: String, entities: EntitySuffixMap, siblingsNeedStatus: Bool = true,
        statuses: [String: PrintStatus], idleEndsPrint: Bool = false, statusOptions: Set<String>? = nil,
        failureMayBeCancel: Bool = false, zeroWhenNotPrinting: Bool = false, busEvents: [String: PrinterBusEvent] = [:]
    ) {
        self.busEvents = busEvents
        self.failureMayBeCancel = failureMayBeCancel
        self.zeroWhenNotPrinting = zeroWhenNotPrinting
        self.name = name
        self.title = title
        self.entities = entities
        self.siblingsNeedStatus = siblingsNeedStatus
        self.statuses = statuses
        self.idleEndsPrint = idleEndsPrint
        self.statusOptions = statusOptions
    }

    public var description: String { name }

    /// What a raw status means to this profile; nil: no information.
    public func status(raw: String) -> PrintStatus? {
        let text = raw.trimmingWhitespace.lowercased()
        if EntityValue.carriesNoInformation(text) { return nil }
        return statuses[text]
    }

    /// The built-in profiles, in the order a tie between them is decided.
    public static let builtIn: [PrinterProfile] = [.bambuLab, .octoPrint, .prusaLink, .moonraker]

    /// The built-in profile of this name.
    public static func named(_ name: String) -> PrinterProfile? {
        builtIn.first { $0.name == name.lowercased() }
    }

    /// ha-bambulab (`greghesp/ha-bambulab`): `definitions.py` and
    /// `translations/en.json` for the entities, pybambu's `const.py` for the
    /// status values; the other words are DESIGN.md's generic table.
    public static let bambuLab = PrinterProfile(
        name: "bambulab", title: "Bambu Lab (ha-bambulab)", entities: .haBambulab, siblingsNeedStatus: false,
        statuses: [
            "running": .running, "printing": .running,
            "pause": .paused, "paused": .paused,
            "finish": .complete, "finished": .complete, "complete": .complete, "completed": .complete,
            "failed": .failed, "error": .failed,
            "cancelled": .cancelled, "canceled": .cancelled,
            "prepare": .preparing, "slicing": .preparing, "init": .preparing, "starting": .preparing,
            "idle": .idle, "standby": .idle, "ready": .idle,
        ], failureMayBeCancel: true,
        // pybambu's models.py (`PrintJob.print_update`) raises these while it
        // reads a report, before the coordinator writes the entities.
        busEvents: ["event_print_failed": .failed, "event_print_canceled": .cancelled])

    /// Home Assistant's OctoPrint integration (`homeassistant/components/
    /// octoprint/sensor.py`): entities named "OctoPrint <sensor>" without
    /// the device's name, so ids are `sensor.octoprint_current_state`
    /// (`…_2` for a second OctoPrint). The status is OctoPrint's state text
    /// (`octoprint/util/comm.py` `getStateString`) in older releases, the
    /// ENUM value of `_API_STATE_VALUE` in newer ones; both are listed.
    /// "Job Percentage" is 0 after a cancel (OctoPrint's
    /// `printer/standard.py` clears the completion) and 100 after a finish.
    public static let octoPrint = PrinterProfile(
        name: "octoprint", title: "OctoPrint (Home Assistant core)",
        entities: EntitySuffixMap(
            suffixes: [
                .status: ["_current_state"],
                .progress: ["_job_percentage"],
                .finishTime: ["_estimated_finish_time"],
                .nozzleTemp: ["_actual_tool0_temp"],
                .bedTemp: ["_actual_bed_temp"],
                .taskName: ["_current_file"],
            ],
            translationKeys: [.status: ["status"], .taskName: ["file_name"]],
            ignoredSuffixes: ["_target_tool0_temp", "_target_bed_temp"],
            platforms: ["octoprint"]),
        statuses: [
            "operational": .idle,
            "printing": .running, "printing from sd": .running, "printing_sd": .running,
            "resuming": .running,
            "starting": .preparing, "starting print from sd": .preparing, "starting_sd": .preparing,
            "pausing": .paused, "paused": .paused,
            "cancelling": .cancelled,
            "finishing": .complete,
            "error": .failed, "offline after error": .failed, "offline_after_error": .failed,
            // Not a print, or no news of one: "Offline", "Connecting",
            // "Opening serial connection", "Detecting serial connection",
            // "Sending file to SD", "Transferring file to SD" and their ENUM values.
        ],
        idleEndsPrint: true)

    /// Home Assistant's PrusaLink integration (`homeassistant/components/
    /// prusalink/sensor.py`, `strings.json`): the status entity has no name
    /// of its own (`sensor.<device>`, its state pyprusalink's `PrinterState`
    /// in lower case); the others are `<device>_progress`, `_filename`,
    /// `_print_finish`, `_nozzle_temperature`, `_heatbed_temperature` (the
    /// temperatures are disabled by default). "attention" is a print that
    /// waits for its user (a runout, a crash), told as a pause; "busy" is
    /// the printer doing something else, no news about a print.
    public static let prusaLink = PrinterProfile(
        name: "prusalink", title: "PrusaLink (Home Assistant core)",
        entities: EntitySuffixMap(
            suffixes: [
                .progress: ["_progress"],
                .taskName: ["_filename"],
                .finishTime: ["_print_finish"],
                .nozzleTemp: ["_nozzle_temperature"],
                .bedTemp: ["_heatbed_temperature"],
            ],
            translationKeys: [
                .status: ["printer_state"], .progress: ["progress"], .taskName: ["filename"],
                .finishTime: ["print_finish"], .nozzleTemp: ["nozzle_temperature"], .bedTemp: ["heatbed_temperature"],
            ],
            ignoredSuffixes: ["_nozzle_target_temperature", "_heatbed_target_temperature"],
            platforms: ["prusalink"]),
        statuses: [
            "idle": .idle, "ready": .idle,
            "printing": .running,
            "paused": .paused, "pausing": .paused, "attention": .paused,
            "finished": .complete,
            "stopped": .cancelled, "cancelling": .cancelled,
            "error": .failed,
        ],
        statusOptions: ["idle", "busy", "printing", "paused", "finished", "stopped", "error", "attention", "ready"])

    /// The Moonraker integration (`marcolivierarsenault/moonraker-home-
    /// assistant`, `custom_components/moonraker/sensor.py`, `const.py`):
    /// entities named in English whatever HA's language (no translation
    /// keys), `<device>_current_print_state` (Klipper's `print_stats.state`),
    /// `_progress`, `_filename`, `_print_eta`, `_current_layer`,
    /// `_total_layer`, `_extruder_temperature`, `_bed_temperature`. Once a
    /// print stops printing, its progress and layers read 0 and its file
    /// name "" (`empty_result_when_not_printing`); HA writes them after the
    /// print state in the same pass (the sensor list's order); those zeros
    /// are no readings, so a pause and an end show the last real values.
    public static let moonraker = PrinterProfile(
        name: "moonraker", title: "Moonraker / Klipper (moonraker-home-assistant)",
        entities: EntitySuffixMap(
            suffixes: [
                .status: ["_current_print_state"],
                .progress: ["_progress"],
                .taskName: ["_filename"],
                .finishTime: ["_print_eta"],
                .currentLayer: ["_current_layer"],
                .totalLayers: ["_total_layer"],
                .nozzleTemp: ["_extruder_temperature"],
                .bedTemp: ["_bed_temperature"],
            ],
            platforms: ["moonraker"]),
        statuses: [
            "standby": .idle,
            "printing": .running,
            "paused": .paused,
            "complete": .complete,
            "cancelled": .cancelled,
            "error": .failed,
        ], zeroWhenNotPrinting: true)
}

extension PrinterProfile: Hashable {
    // One profile per name: comparing names keeps snapshot comparisons cheap.
    public static func == (lhs: PrinterProfile, rhs: PrinterProfile) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// What an integration's bus event says about a print.
public enum PrinterBusEvent: Hashable, Sendable {
    /// The print failed (ha-bambulab's `event_print_failed`: raised as the
    /// printer's state turns FAILED, before the status entity says so; in a
    /// report without the cancel code, which may still follow it).
    case failed
    /// The user cancelled the print (ha-bambulab's `event_print_canceled`:
    /// the print error became the cancel code). Counts as that code.
    case cancelled
}
