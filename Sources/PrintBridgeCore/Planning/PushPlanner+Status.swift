/// Status transitions: a new status is held back for a moment (`HoldRule`)
/// or acted on, and a transition acted on sends its alert and Live Activity
/// push and moves the print's memory along.
extension PushPlanner {
    /// A new status seen. Returns whether it took care of the Live Activity.
    mutating func see(_ status: PrintStatus, state: inout PrinterNotificationState, builder: inout PushBuilder) -> Bool {
        var handled = false
        // A new print (or its preparation) heats the bed again: nothing to remove.
        if status.isActive || status == .preparing { state.bedCoolingSince = nil }
        let failureAnnounced = state.failureAnnounced
        state.failureAnnounced = nil
        if let held = state.held {
            // A later status settles what was held back.
            state.held = nil
            switch held.status {
            case .idle, .preparing:
                if status.isActive, builder.snapshot.fileName == held.file {
                    // Back with the same file: a flicker, not a new print.
                    if status == state.lastStatus { return false }
                } else {
                    handled = act(on: held.status, state: &state, builder: &builder)
                }
            case .failed where status == .cancelled:
                break  // the cancel code followed the failure: one "Print Cancelled"
            case .running where !status.isActive && !status.isTerminal:
                // Started and gone again before the start was told: nothing to tell.
                state.lastStatus = status
                return false
            default:
                handled = act(on: held.status, state: &state, builder: &builder)
            }
        }
        if state.lastStatus == nil, status == .running, let since = watchingSince,
            let changed = builder.snapshot.changedAt[.status], changed > since
        {
            // No memory of this printer, but its print began after PrintBridge
            // began watching: it started while PrintBridge was down (or dying).
            state.lastStatus = .idle
        }
        guard let last = state.lastStatus else {
            takeBaseline(status, state: &state, snapshot: builder.snapshot, now: builder.now)
            state.lastStatus = status
            return handled
        }
        guard status != last else { return handled }
        // Held back for a moment, or acted on now (`HoldRule`).
        let circumstances = HoldRule.Circumstances(
            profile: builder.snapshot.profile, failureAnnounced: failureAnnounced != nil)
        if let rule = HoldRule.rule(from: last, to: status, given: circumstances) {
            let window = rule.window.seconds(in: configuration)
            if window > 0 {
                state.held = .init(
                    status: status, due: builder.now + window, file: rule.keepsFile ? builder.snapshot.fileName : nil)
                state.liveActivityDue = nil
                return true
            }
        }
        return act(on: status, state: &state, builder: &builder) || handled
    }

    /// Acts on the move from the last status acted on to `status`. Returns
    /// whether a Live Activity push was part of it.
    @discardableResult
    mutating func act(on status: PrintStatus, state: inout PrinterNotificationState, builder: inout PushBuilder) -> Bool {
        var status = status
        // Back from silence without the print: it was lost while the
        // printer was away (its host stopped, and the print with it).
        var lostWhileAway = false
        if status == .idle, builder.snapshot.profile.idleEndsPrint, state.lastStatus?.isActive == true {
            // An end shown as idle: 100 % after a finish, 0 after a cancel or
            // a stop.
            if (builder.snapshot.progress ?? 0) >= 100 {
                status = .complete
            } else {
                lostWhileAway = state.silence != nil
                status = lostWhileAway ? .failed : .cancelled
                if let last = state.milestoneReference, last > builder.snapshot.progress ?? 0 {
                    builder.snapshot.progress = last  // the end shows where the print stopped, not the cleared 0
                }
            }
        }
        if state.silence != nil, let last = state.lastStatus, Transition(from: last, to: status) == .abandoned {
            lostWhileAway = true
            status = .failed
        }
        defer { state.lastStatus = status }
        if status == .paused, let last = state.lastStatus, !last.isActive, last != .preparing {
            // Paused straight after an end or idle: a print that started and
            // paused while the agent was away. Nothing is told (as before),
            // but it is a new print: its own id, milestones from where it
            // is, its own pauses and spools, so its end is its own record.
            state.printID = Self.printID(builder.snapshot, now: builder.now)
            builder.printID = state.printID
            state.milestoneReference = builder.snapshot.progress ?? 0
            state.milestonesSent = Set(configuration.milestones.filter { Double($0) <= builder.snapshot.progress ?? 0 })
            startTally(state: &state, snapshot: builder.snapshot)
        }
        guard let last = state.lastStatus, let transition = Transition(from: last, to: status) else { return false }
        apply(transition, state: &state, builder: &builder, reason: lostWhileAway ? .reasonOffline : nil)
        return true
    }

    /// What a transition does: its alert, its Live Activity push, the
    /// print's memory and, for an end, its history record.
    mutating func apply(
        _ transition: Transition, state: inout PrinterNotificationState, builder: inout PushBuilder,
        reason: Catalog.Key? = nil
    ) {
        let now = builder.now
        switch transition {
        case .started:
            state.printID = Self.printID(builder.snapshot, now: now)
            builder.printID = state.printID
            state.milestonesSent = []
            state.milestoneReference = 0
            state.pauseToldTo = []
            state.silence = nil
            startTally(state: &state, snapshot: builder.snapshot)
            builder.alert(.started, status: .running)
            // A first layer done while the start settled (the simulator's
            // quick first layer): the snapshot holds only this print's
            // readings (`currentPrint`), so a layer of 2 or more is this one's.
            if let layer = builder.snapshot.currentLayer, layer >= 2 { tellFirstLayer(state: state, builder: &builder) }
            builder.pushToStart()
            immediateUpdate(.running, state: &state, builder: &builder)
            // Progress read while the start settled counts from 0.
            state.lastStatus = .running
            checkMilestones(state: &state, builder: &builder, alerting: true)
        case .resumed:
            if !state.pauseToldTo.isEmpty {
                // "Print Paused" would stay on the phone as the latest word.
                let since = builder.snapshot.changedAt[.status]?.wholeSeconds ?? now.wholeSeconds
                builder.quietNote(
                    .resumed, replacing: .paused, to: state.pauseToldTo,
                    idName: "\(state.printID ?? builder.prefix)|resumed|\(since)")
                state.pauseToldTo = []
            }
            immediateUpdate(.running, state: &state, builder: &builder)
        case .paused:
            if state.lastStatus == .preparing {
                state.printID = Self.printID(builder.snapshot, now: now)
                builder.printID = state.printID
                state.milestonesSent = []
                state.milestoneReference = 0
                startTally(state: &state, snapshot: builder.snapshot)
            }
            // Told audibly by the activity's update to the phones it lights
            // (`activityAlertRecipients`); their alert goes quietly.
            let lit = builder.activityAlertRecipients(.paused)
            state.pauseToldTo = builder.alert(.paused, status: .paused, quieted: lit)
            // A milestone crossed by the reading that came with the pause:
            // the paused alert carries that progress, the others hear it.
            checkMilestones(state: &state, builder: &builder, alerting: true, skipping: state.pauseToldTo)
            absorbErrors(state: &state, snapshot: builder.snapshot)
            immediateUpdate(.paused, state: &state, builder: &builder, alerting: .paused)
        case .complete, .failed, .cancelled:
            let status = builder.snapshot.status.flatMap { $0.isTerminal ? $0 : nil } ?? transition.terminalStatus
            if state.printID == nil {
                // The alert names the print its history record is (`record`).
                state.printID = Self.printID(builder.snapshot, now: now)
                builder.printID = state.printID
            }
            // A failure lights the phones with an activity that want it by an
            // update carrying its alert just before the end (an end carries
            // none); their alert goes quietly, as a pause's.
            let lit = transition == .failed ? builder.activityAlertRecipients(.failed) : []
            builder.alert(transition.alertEvent!, status: status, reason: reason, quieted: lit)
            state.pauseToldTo = []
            state.silence = nil
            absorbErrors(state: &state, snapshot: builder.snapshot)
            if status == .complete, let bed = builder.snapshot.bedTemp, bed >= configuration.bedCooledBelow {
                state.bedCoolingSince = now
            }
            if !lit.isEmpty {
                builder.liveActivityUpdate(
                    priority: 10, status: status, alerting: .failed, reason: reason, onlyAlerting: true)
            }
            builder.liveActivityEnd(status: status)
            state.lastLiveActivityPush = nil
            state.liveActivityDue = nil
            record(transition, status: status, state: state, builder: &builder, offline: reason == .reasonOffline)
            endTally(state: &state)
        case .abandoned:
            builder.liveActivityEnd(status: .idle)
            state.lastLiveActivityPush = nil
            state.liveActivityDue = nil
            state.pauseToldTo = []
            state.silence = nil
            record(transition, status: .idle, state: state, builder: &builder)
            endTally(state: &state)
        }
    }

    /// A status change reaches the Lock Screen at once, at priority 10, and
    /// makes any scheduled routine update unnecessary.
    /// It shows the status of the change (a start told late, when the print
    /// was already cancelled, shows running; its end follows).
    func immediateUpdate(
        _ status: PrintStatus, state: inout PrinterNotificationState, builder: inout PushBuilder,
        alerting: Push.Event? = nil
    ) {
        state.liveActivityDue = nil
        if builder.liveActivityUpdate(priority: 10, status: status, alerting: alerting) {
            state.lastLiveActivityPush = builder.now
            state.statusUpdateAt = builder.now
        }
    }

    /// The first status seen: no alert. A print already under way takes its
    /// current progress as the milestone baseline, so nothing behind it fires.
    func takeBaseline(
        _ status: PrintStatus, state: inout PrinterNotificationState, snapshot: PrinterSnapshot, now: EpochTime
    ) {
        guard status.isActive else { return }
        state.printID = Self.printID(snapshot, now: now)
        state.milestonesSent = []
        state.milestoneReference = snapshot.progress
        if let progress = snapshot.progress {
            state.milestonesSent = Set(configuration.milestones.filter { Double($0) <= progress })
        }
    }
}
