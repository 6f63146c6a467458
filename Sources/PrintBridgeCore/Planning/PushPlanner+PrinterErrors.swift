/// Printer errors (`PrinterSnapshot.printerErrors`): each new one told once,
/// unless a pause or failure takes it as its reason.
extension PushPlanner {
    /// The printer's errors as HA now lists them. New ones are told
    /// after the reason window (a pause or failure in it takes them as its
    /// reason instead); one that went away and is back within the flicker
    /// window is the same error; on first sight they are a baseline, unless
    /// they appeared after PrintBridge began watching.
    func see(_ errors: [PrinterError], state: inout PrinterNotificationState, builder: PushBuilder) {
        let now = builder.now
        let current = Set(errors.map(\.code))
        guard var told = state.toldErrors else {
            let appeared = builder.snapshot.changedAt[.printerErrors]
            let isNew = watchingSince.map { since in appeared.map { $0 > since } ?? false } ?? false
            state.toldErrors = isNew ? [] : current
            if isNew, !current.isEmpty { state.errorsDue = now + configuration.reasonWindow }
            return
        }
        for code in told.subtracting(current) {
            told.remove(code)
            state.clearedErrors[code] = now
        }
        for code in current.subtracting(told) {
            if let cleared = state.clearedErrors[code], now - cleared < configuration.flickerWindow {
                told.insert(code)
            }
        }
        state.clearedErrors = state.clearedErrors.filter { code, cleared in
            !told.contains(code) && now - cleared < configuration.flickerWindow
        }
        state.toldErrors = told
        if current.subtracting(told).isEmpty {
            state.errorsDue = nil
        } else if state.errorsDue == nil {
            state.errorsDue = now + configuration.reasonWindow
        }
    }

    /// Tells each printer error not yet told, most severe first, unless a pause
    /// or failure is still held (it takes them) or was just told (they were
    /// its reason).
    func tellNewErrors(state: inout PrinterNotificationState, builder: inout PushBuilder) {
        let due = state.errorsDue ?? builder.now
        if let held = state.held, held.status == .paused || held.status == .failed {
            state.errorsDue = max(held.due, due)
            return
        }
        state.errorsDue = nil
        let snapshot = builder.snapshot
        if let last = state.lastStatus, last == .paused || last.isTerminal,
            let changed = snapshot.changedAt[.status], due - changed <= 2 * configuration.reasonWindow
        {
            absorbErrors(state: &state, snapshot: snapshot)
            return
        }
        var told = state.toldErrors ?? []
        let new = (snapshot.printerErrors ?? []).filter { !told.contains($0.code) }
        for error in new.sorted(by: { $0.severity < $1.severity }) {
            builder.printerErrorAlert(error, duringPrint: state.lastStatus?.isActive == true)
            told.insert(error.code)
        }
        state.toldErrors = told
    }

    /// Printer errors there when a pause or failure is told belong to it.
    func absorbErrors(state: inout PrinterNotificationState, snapshot: PrinterSnapshot) {
        guard let errors = snapshot.printerErrors else { return }
        state.toldErrors = (state.toldErrors ?? []).union(errors.map(\.code))
        state.errorsDue = nil
    }
}
