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
        // A pause still open when the print ended lasted until its end.
        let paused = state.pausedSeconds.map { $0 + (state.pausedSince.map { max(0, ended.seconds - $0.seconds) } ?? 0) }
        builder.plan.prints.append(PrintRecord(
            printID: printID, printer: snapshot.prefix, printerName: builder.printerName, file: snapshot.fileName,
            startedAt: started, endedAt: ended,
            outcome: outcome, reason: reason,
            progress: status == .complete ? 100 : snapshot.progress,
            currentLayer: snapshot.currentLayer.map { _ in content.currentLayer },
            totalLayers: snapshot.totalLayers, pausedSeconds: paused.map { min($0, max(0, ended.seconds - started.seconds)) },
            materials: snapshot.currentPrint().material.uses(spoolsSeen: state.spoolsSeen)))
        // The app's history and statistics refresh in the background.
        builder.backgroundRefresh(
            builder.plan.prints[builder.plan.prints.count - 1],
            status: outcome == .abandoned ? snapshot.status ?? .idle : status)
    }
}

extension PushPlanner {
    /// Keeps what the print's record needs whatever the alerts make of its
    /// statuses (a pause held back, a resume quietly noted): how long it
    /// was paused, by HA's `last_changed`, and which spools fed it.
    func noteTimes(_ snapshot: PrinterSnapshot, state: inout PrinterNotificationState, now: EpochTime) {
        guard let status = snapshot.status else { return }
        let at = snapshot.changedAt[.status] ?? now
        if status == .paused {
            if state.pausedSince == nil { state.pausedSince = at }
        } else if let since = state.pausedSince {
            // A print does not finish paused: complete straight after a pause
            // means a resume the agent did not see (it was down), and how long
            // the pause lasted is unknown (its whole time counts as printing).
            state.pausedSeconds = status == .complete ? nil : state.pausedSeconds.map { $0 + max(0, at.seconds - since.seconds) }
            state.pausedSince = nil
        }
    }

    /// The spool feeding the printer while a print is under way.
    func noteSpool(_ snapshot: PrinterSnapshot, state: inout PrinterNotificationState) {
        guard state.lastStatus?.isActive == true, let spool = snapshot.material.activeSpool else { return }
        if state.spoolsSeen[spool.name] != spool.material { state.spoolsSeen[spool.name] = spool.material }
    }

    /// A new print: no pauses, no spools yet (the one feeding it now counts).
    func startTally(state: inout PrinterNotificationState, snapshot: PrinterSnapshot) {
        state.pausedSeconds = 0
        if snapshot.status != .paused { state.pausedSince = nil }
        state.spoolsSeen = [:]
        if let spool = snapshot.material.activeSpool { state.spoolsSeen[spool.name] = spool.material }
    }

    /// The print ended and its record is made: nothing carries to the next.
    func endTally(state: inout PrinterNotificationState) {
        state.pausedSeconds = 0
        state.pausedSince = nil
        state.spoolsSeen = [:]
    }
}
