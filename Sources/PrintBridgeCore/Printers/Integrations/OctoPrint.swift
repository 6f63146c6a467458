extension PrinterProfile {
    /// Home Assistant's OctoPrint integration (`homeassistant/components/
    /// octoprint/sensor.py`): entities named "OctoPrint <sensor>" without
    /// the device's name, so ids are `sensor.octoprint_current_state`
    /// (`…_2` for a second OctoPrint). The status is OctoPrint's state text
    /// (`octoprint/util/comm.py` `getStateString`) in older releases, the
    /// ENUM value of `_API_STATE_VALUE` in newer ones; both are listed.
    /// HA polls OctoPrint every 30 s, so a finish usually shows as Printing
    /// → Operational (`idleEndsPrint`): "Job Percentage" is 100 after a
    /// finish and 0 after a cancel (OctoPrint's `printer/standard.py`
    /// clears the completion). HA 2024.3's has no file-name sensor.
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
        idleEndsPrint: true,
        // button.py: "OctoPrint Pause Job", "… Resume Job", "… Stop Job".
        actionButtons: [.pause: "pause_job", .resume: "resume_job", .stop: "stop_job"],
        // camera.py: "OctoPrint Camera", made when OctoPrint's webcam is
        // enabled; a still from its snapshot URL.
        cameras: [.init("camera", "_camera")])
}
