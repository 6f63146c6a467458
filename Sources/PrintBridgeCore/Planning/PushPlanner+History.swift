/// The print history: one record for each print that ended.
extension PushPlanner {
    /// The ended print, for the history: its readings as the last pushes told them.
    func record(
        _ transition: Transition, status: PrintStatus, state: PrinterNotificationState, builder: inout PushBuilder,
        offline: Bool = false
    ) {
        let snapshot = builder.snapshot
        let now = builder.now
        let printID = state.printID ?? Self.printID(snapshot, now: now)
        let outcome: PrintRecord.Outcome
        var reason: String?
        switch status {
        case .complete: outcome = .complete
        case .cancelled:
            outcome = .cancelled
            reason = "cancelled by the user"
        case .failed:
            outcome = .failed
            // The code as the printer's integration writes it.
            reason = offline
                ? "the printer went offline mid-print"
                : snapshot.errorCode.map { "print error \(snapshot.profile.errorNotation($0))" }
        default:
            outcome = .abandoned
            reason = "the printer went \(snapshot.status?.rawValue ?? "idle") without finishing"
        }
        let content = snapshot.contentState(status: status)
        // Both ends by HA's clock where HA gave them (the status entity's
        // last_changed), so a duration never mixes two machines' clocks and
        // a recording replays with its own times.
        let started = PrintRecord.startTime(ofPrintID: printID) ?? snapshot.printBeganAt ?? now
        let ended = snapshot.changedAt[.status].flatMap { $0 >= started ? $0 : nil } ?? now
        builder.plan.prints.append(PrintRecord(
            printID: printID, printer: snapshot.prefix, printerName: builder.printerName, file: snapshot.fileName,
            startedAt: started, endedAt: ended,
            outcome: outcome, reason: reason,
            progress: status == .complete ? 100 : snapshot.progress,
            currentLayer: snapshot.currentLayer.map { _ in content.currentLayer },
            totalLayers: snapshot.totalLayers))
        // The app's history and statistics refresh in the background.
        builder.backgroundRefresh(
            builder.plan.prints[builder.plan.prints.count - 1],
            status: outcome == .abandoned ? snapshot.status ?? .idle : status)
    }
}
