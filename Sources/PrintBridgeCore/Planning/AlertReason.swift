/// Why a print paused, failed or was cancelled, as the printer said it:
/// ha-bambulab's stage (`sensor.<p>_current_stage`, pybambu's
/// `CURRENT_STAGE_IDS`: `paused_filament_runout`, `paused_nozzle_clog`, …),
/// its print error's text (`binary_sensor.<p>_print_error`, attribute
/// `error`) and its HMS errors (`binary_sensor.<p>_hms_errors`).
///
/// A stage is said in the phone's language (the catalog's `stage.<value>`);
/// the error texts are ha-bambulab's, in Home Assistant's language.
enum AlertReason {
    /// The reason for `event`, if the printer gave one:
    /// - a pause: the stage, then the print error, then the most severe HMS error;
    /// - a failure or cancel: the print error (not the cancel code's own
    ///   "The task was canceled."), then the most severe HMS error, then the stage.
    ///
    /// A filament runout names its AMS slot when an HMS error gives it.
    static func text(for event: Push.Event, snapshot: PrinterSnapshot, catalog: Catalog) -> String? {
        let printError = snapshot.errorCode == PrintStatus.bambuCancelledErrorCode ? nil : snapshot.errorText
        let hms = mostSevere(snapshot.hmsErrors)?.text
        switch event {
        case .paused: return stage(snapshot, catalog) ?? printError ?? hms
        case .failed, .cancelled: return printError ?? hms ?? stage(snapshot, catalog)
        default: return nil
        }
    }

    /// Whether a held pause can be told before its window ends: the stage
    /// says why (and a runout's slot is in). An error text alone waits for
    /// the window, as the stage, which says it better, may follow.
    static func isComplete(forPause snapshot: PrinterSnapshot) -> Bool {
        guard stage(snapshot, .english) != nil else { return false }
        return !isRunout(snapshot) || runoutLocation(snapshot) != nil
    }

    /// The HMS error that says most: fatal before serious before common …,
    /// then the first listed.
    static func mostSevere(_ errors: [HMSError]?) -> HMSError? {
        guard let errors, var best = errors.first(where: { !$0.text.isEmpty }) else { return nil }
        for error in errors where !error.text.isEmpty && error.severity < best.severity { best = error }
        return best
    }

    private static func isRunout(_ snapshot: PrinterSnapshot) -> Bool {
        snapshot.stage?.lowercased() == "paused_filament_runout"
    }

    private static func runoutLocation(_ snapshot: PrinterSnapshot) -> FilamentLocation? {
        snapshot.hmsErrors?.lazy.compactMap(\.filamentLocation).first
    }

    /// The stage's reason in the catalog's language: only stages that say
    /// why the printer stopped (`paused_…`, `m400_pause`) have one.
    private static func stage(_ snapshot: PrinterSnapshot, _ catalog: Catalog) -> String? {
        guard let stage = snapshot.stage?.lowercased(), stage.hasPrefix("paused_") || stage == "m400_pause",
            let text = catalog.text("stage." + stage)
        else { return nil }
        guard isRunout(snapshot), let location = runoutLocation(snapshot) else { return text }
        let slot: [String: CatalogArgument] = ["unit": .text(location.unit), "slot": .count(location.slot)]
        let place: String
        switch location.kind {
        case .external: place = catalog.text(.locationExternal)
        case .ams: place = catalog.text(.locationAMS, slot)
        case .amsLite: place = catalog.text(.locationAMSLite, slot)
        case .amsHT: place = catalog.text(.locationAMSHT, slot)
        }
        return catalog.text(.reasonWithLocation, ["reason": .text(text), "location": .text(place)])
    }
}
