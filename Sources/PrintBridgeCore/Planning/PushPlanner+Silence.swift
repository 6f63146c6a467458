/// A printer gone quiet mid-print: told offline after `offlineWindow`, its
/// return told quietly to the phones that heard it.
extension PushPlanner {
    /// The printer of a print went quiet, or is back. Quiet for
    /// `offlineWindow`, the print is told as offline (`tellOffline`); back
    /// printing, the phones told hear it quietly; back without the print,
    /// its end says it was lost while the printer was away (`act`).
    func noteSilence(state: inout PrinterNotificationState, builder: inout PushBuilder) {
        if let since = builder.snapshot.silentSince {
            guard state.silence == nil, let status = state.lastSeenStatus, status.isActive || status == .preparing
            else { return }
            let window = configuration.offlineWindow
            state.silence = .init(since: since, due: window > 0 ? since + window : nil)
            return
        }
        guard let silence = state.silence, let status = builder.snapshot.status, status.isActive || status == .preparing
        else { return }  // an end: its transition says what happened
        if let told = silence.toldTo, !told.isEmpty {
            builder.quietNote(
                .backOnline, replacing: .offline, to: told,
                idName: "\(state.printID ?? builder.prefix)|back_online|\(silence.since.wholeSeconds)",
                aboutPrint: status.isActive)
        }
        state.silence = nil
    }

    /// "Printer Offline", once, if the printer is still quiet and its print
    /// still under way.
    func tellOffline(
        _ silence: PrinterNotificationState.Silence, state: inout PrinterNotificationState, builder: inout PushBuilder
    ) {
        var silence = silence
        silence.due = nil
        defer { state.silence = silence }
        guard builder.snapshot.silentSince != nil, let status = state.lastStatus, status.isActive || status == .preparing
        else { return }
        silence.toldTo = builder.alert(
            .offline, status: status, idName: "\(state.printID ?? builder.prefix)|offline|\(silence.since.wholeSeconds)",
            aboutPrint: status.isActive)
    }
}
