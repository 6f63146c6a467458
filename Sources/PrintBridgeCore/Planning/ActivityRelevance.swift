/// The `relevance-score` of a printer's Live Activity push: with several
/// activities running (two printers printing), the system features the one
/// with the highest score in the Dynamic Island and at the top of the Lock
/// Screen (ActivityKit: "relevance-score"; any number, only the order
/// matters; alexandercerutti/hapns src/notifications/LiveActivityNotification.ts
/// documents "25, 50, 75, or 100"). One scale for every printer, so the
/// scores compare:
///
/// | the printer                                     | score           |
/// |-------------------------------------------------|-----------------|
/// | needs a hand: paused, failed, or an error while it prints | 100  |
/// | printing, by progress: just started → about to finish | 50 → 90 (50 + 0.4 × %) |
/// | preparing (heating, levelling)                  | 45              |
/// | finished (the end push: ready to take off)      | 40              |
/// | cancelled, or gone idle (the end push)          | 20              |
///
/// So a printer waiting for filament wins over one printing, and of two
/// printing the one nearer its end wins (95 % → 88 over 10 % → 54).
public enum ActivityRelevance {
    public static func score(status: PrintStatus?, progress: Double?, hasErrors: Bool) -> Double {
        switch status {
        case .paused, .failed: return 100
        case .running:
            if hasErrors { return 100 }
            let fraction = min(max((progress ?? 0) / 100, 0), 1)
            return (50 + 40 * fraction).rounded()
        case .preparing: return hasErrors ? 100 : 45
        case .complete: return 40
        case .cancelled, .idle, nil: return 20
        }
    }

    /// The score of `snapshot` shown as `status` (the status a change is about).
    static func score(_ snapshot: PrinterSnapshot, status: PrintStatus?) -> Double {
        score(status: status ?? snapshot.status, progress: snapshot.progress,
              hasErrors: !(snapshot.printerErrors ?? []).isEmpty)
    }
}
