/// Why a print paused, failed or was cancelled, as the printer said it: its
/// stage (as its integration reads one, `PrinterProfile.stageReason`), its
/// print error's text and its printer errors.
///
/// A stage is said in the phone's language (the catalog); the error texts
/// are the integration's, in Home Assistant's language.
enum AlertReason {
    /// The reason for `event`, if the printer gave one:
    /// - a pause: the stage, then the print error, then the most severe printer error;
    /// - a failure or cancel: the print error (not the cancel code's own
    ///   text), then the most severe printer error, then the stage.
    static func text(for event: Push.Event, snapshot: PrinterSnapshot, catalog: Catalog) -> String? {
        let printError = snapshot.profile.isCancelCode(snapshot.errorCode) ? nil : snapshot.errorText
        let printerError = mostSevere(snapshot.printerErrors)?.text
        switch event {
        case .paused: return snapshot.profile.stageReason(snapshot, catalog) ?? printError ?? printerError
        case .failed, .cancelled: return printError ?? printerError ?? snapshot.profile.stageReason(snapshot, catalog)
        default: return nil
        }
    }

    /// Whether a held pause can be told before its window ends: the printer
    /// has said why (`PrinterProfile.stageExplainsPause`).
    static func isComplete(forPause snapshot: PrinterSnapshot) -> Bool {
        snapshot.profile.stageExplainsPause(snapshot)
    }

    /// The printer error that says most: fatal before serious before common …,
    /// then the first listed.
    static func mostSevere(_ errors: [PrinterError]?) -> PrinterError? {
        guard let errors, var best = errors.first(where: { !$0.text.isEmpty }) else { return nil }
        for error in errors where !error.text.isEmpty && error.severity < best.severity { best = error }
        return best
    }
}
