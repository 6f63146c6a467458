/// ha-bambulab (`greghesp/ha-bambulab`) and pybambu, the library inside it:
/// everything PrintBridge knows of Bambu Lab printers as Home Assistant
/// shows them. `definitions.py` and `translations/en.json` give the
/// entities, pybambu's `const.py` the status values and stages, its
/// `models.py` the bus events, the print error and the HMS errors.
public enum BambuLab {
    /// ha-bambulab's bus event, `f"{DOMAIN}_event"` (`bambu_lab_event`) in
    /// its coordinator.py, naming the HA device (`device_id`) and what
    /// happened (`type`). pybambu's models.py (`PrintJob.print_update`)
    /// raises `event_print_failed` as it reads the report that turns the
    /// printer FAILED, before the coordinator writes the entities (a
    /// report without the cancel code, which may follow in the next), and
    /// `event_print_canceled` when the print error becomes the cancel code.
    public static let busEvents = PrinterBusEvents(
        eventType: "bambu_lab_event",
        meanings: ["event_print_failed": .failed, "event_print_canceled": .cancelled])

    /// Bambu's print error code for "cancelled by the user" (0x0300400C,
    /// "0300_400C"): Bambu reports such a print as failed with this error.
    public static let cancelCode = 50_348_044

    /// A Bambu print error code as Bambu Studio and the printer's screen
    /// write it: two groups of four hex digits ("0300-400C"). pybambu's
    /// PrintError writes it "0300_400C".
    public static func notation(_ code: Int) -> String {
        let hex = String(UInt32(truncatingIfNeeded: code), radix: 16, uppercase: true)
        let padded = String(repeating: "0", count: max(0, 8 - hex.count)) + hex
        return "\(padded.prefix(4))-\(padded.suffix(4))"
    }

    /// A Bambu print error code from an error entity: its state or its
    /// `code` / `error_code` attribute, as a number (`50348044`) or in Bambu's
    /// hex notation (`0300400C`, `0300_400C`, `0x0300400C`).
    public static func errorCode(state: String, attributes: [String: JSONValue]) -> Int? {
        for candidate in [attributes["code"], attributes["error_code"], .string(state)] {
            guard let candidate else { continue }
            if let int = candidate.intValue, int > 0 { return int }
            guard let text = candidate.stringValue?.trimmingWhitespace, !text.isEmpty else { continue }
            if let decimal = Int(text), decimal > 0 { return decimal }
            var hex = String(text.filter { $0 != "_" }).lowercased()
            if hex.hasPrefix("0x") { hex.removeFirst(2) }
            if hex.count == 8, let value = Int(hex, radix: 16), value > 0 { return value }
        }
        return nil
    }

    /// `binary_sensor.<p>_print_error`: the code (above) and pybambu's
    /// `PrintError` text in the `error` attribute ("unknown" for a code it
    /// has no text for). An entity that clears ("0", "off", "none") clears
    /// the code.
    static func printError(_ state: HAState) -> PrintErrorReading {
        if let code = errorCode(state: state.state, attributes: state.attributes) {
            let text = state.attributes["error"]?.stringValue.flatMap {
                let text = $0.trimmingWhitespace
                return text.isEmpty || text.lowercased() == "unknown" ? nil : String(text)
            }
            return .error(code: code, text: text)
        }
        return EntityValue.carriesNoInformation(state.state) ? .noInformation : .cleared
    }
}

extension PrinterProfile {
    /// ha-bambulab: its entities, pybambu's status values (and DESIGN.md's
    /// generic words), its bus events, its cancel code and error notation,
    /// its print-error, HMS-errors and stage entities, its spools and the
    /// material its prints use (`BambuLab+Spools.swift`).
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
        ],
        // The status and the print error come in one update pass in no fixed order.
        failureMayBeCancel: true,
        busEvents: BambuLab.busEvents, cancelCode: BambuLab.cancelCode, errorNotation: BambuLab.notation,
        readPrintError: BambuLab.printError, readPrinterErrors: BambuLab.hmsErrors(_:),
        spoolAmounts: BambuLab.spoolAmounts, readActiveSpool: BambuLab.activeSpool,
        materialOfEarlierPrint: BambuLab.materialOfEarlierPrint,
        stageReason: BambuLab.stageReason, stageExplainsPause: BambuLab.stageExplainsPause,
        // button.py: "Pause printing", "Resume printing", "Stop printing" (unique ids <serial>_pause …).
        actionButtons: [.pause: "pause_printing", .resume: "resume_printing", .stop: "stop_printing"],
        // camera.py: the chamber camera (X1: RTSP; P1/A1: JPEG frames), or
        // with "camera as image sensor" image.py's ChamberImage; then the
        // job's cover image (the 3MF's plate thumbnail).
        cameras: [.init("camera", "_camera"), .init("image", "_camera"), .init("image", "_cover_image")])
}

extension EntitySuffixMap {
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
            .printerErrors: ["_hms_errors"],
            // definitions.py: "Print weight" (g) and "Print length" (m), the
            // amounts per spool in their attributes (pybambu's
            // `get_print_weights`), and "Active tray" with the spool's type
            // and colour.
            .materialWeight: ["_print_weight"],
            .materialLength: ["_print_length"],
            .activeSpool: ["_active_tray"],
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
            .printerErrors: ["hms_errors"],
            .materialWeight: ["print_weight"],
            .materialLength: ["print_length"],
            .activeSpool: ["active_tray"],
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
}

// The names these facts had before they moved here, kept for their callers.

extension PrintStatus {
    /// Bambu's cancel code (`BambuLab.cancelCode`).
    public static let bambuCancelledErrorCode = BambuLab.cancelCode
}

extension PrintRecord {
    /// A Bambu print error code in Bambu's notation (`BambuLab.notation`).
    public static func bambuNotation(_ code: Int) -> String { BambuLab.notation(code) }
}

extension EntityValue {
    /// A Bambu print error code from an error entity (`BambuLab.errorCode`).
    public static func errorCode(state: String, attributes: [String: JSONValue]) -> Int? {
        BambuLab.errorCode(state: state, attributes: attributes)
    }
}
