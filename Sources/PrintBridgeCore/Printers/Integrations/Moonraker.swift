extension PrinterProfile {
    /// The Moonraker integration (`marcolivierarsenault/moonraker-home-
    /// assistant`, `custom_components/moonraker/sensor.py`, `const.py`):
    /// entities named in English whatever HA's language (no translation
    /// keys, so registry entries of platform `moonraker` match by suffix),
    /// `<device>_current_print_state` (Klipper's `print_stats.state`),
    /// `_progress`, `_filename`, `_print_eta`, `_current_layer`,
    /// `_total_layer`, `_extruder_temperature`, `_bed_temperature`. Once a
    /// print stops printing, its progress and layers read 0 and its file
    /// name "" (`empty_result_when_not_printing`); HA writes them after the
    /// print state in the same pass (the sensor list's order); those zeros
    /// are no readings (`zeroWhenNotPrinting`), so a pause and an end show
    /// the last real values.
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
                // "Filament Used": print_stats.filament_used / 1000 (meters),
                // 0 when not printing.
                .materialLength: ["_filament_used"],
            ],
            platforms: ["moonraker"]),
        statuses: [
            "standby": .idle,
            "printing": .running,
            "paused": .paused,
            "complete": .complete,
            "cancelled": .cancelled,
            "error": .failed,
        ], zeroWhenNotPrinting: true,
        // button.py: "Pause Print", "Resume Print", "Cancel Print".
        actionButtons: [.pause: "pause_print", .resume: "resume_print", .stop: "cancel_print"],
        // camera.py: a MjpegCamera per Moonraker webcam, "<device> <webcam
        // name>" (the registry finds one of any name), and the print's
        // thumbnail ("<device> Thumbnail") while it prints.
        cameras: [.init("camera", "_webcam"), .init("camera", "_thumbnail")])
}
