extension PrinterProfile {
    /// Home Assistant's PrusaLink integration (`homeassistant/components/
    /// prusalink/sensor.py`, `strings.json`): the status entity has no name
    /// of its own (`sensor.<device>`, its state pyprusalink's `PrinterState`
    /// in lower case), found by the registry's translation key
    /// `printer_state`, else by its options (`statusOptions`, exactly
    /// PrinterState's nine values); the others are `<device>_progress`,
    /// `_filename`, `_print_finish`, `_nozzle_temperature`,
    /// `_heatbed_temperature` (the temperatures are disabled by default).
    /// "attention" is a print that waits for its user (a runout, a crash),
    /// told as a pause; "busy" is the printer doing something else, no news
    /// about a print.
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
        statusOptions: ["idle", "busy", "printing", "paused", "finished", "stopped", "error", "attention", "ready"],
        // button.py: translation keys pause_job, resume_job, cancel_job.
        actionButtons: [.pause: "pause_job", .resume: "resume_job", .stop: "cancel_job"],
        // camera.py: not a webcam but the job's preview (translation key
        // job_preview, "Preview"), while the job has a thumbnail.
        cameras: [.init("camera", "_preview")])
}
