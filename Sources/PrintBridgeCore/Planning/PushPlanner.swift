/// Turns printer changes into pushes: which alerts and Live Activity updates
/// go to which device, and when.
///
/// A pure state machine: a change, the devices and the time go in; pushes
/// and the new per-printer memory come out. Transitions are judged against
/// the last *known* status, so HA restarts and reconnects never re-alert.
public struct PushPlanner: Sendable {
    public var configuration: PlannerConfiguration
    public private(set) var printers: [String: PrinterNotificationState]
    /// Since when the memory behind `printers` has been kept (the store's
    /// first run); nil: no memory beyond this process (replay).
    public var watchingSince: EpochTime?

    /// What one change produced.
    public struct Plan: Hashable, Sendable {
        public var pushes: [Push] = []
        /// Live Activities ended by this plan: their update tokens are spent.
        public var endedActivities: [ActivityEnd] = []
        /// Pushes that could not be built (payload over APNs' limit), with the reason.
        public var failures: [String] = []
        /// Whether the printer's notification state changed (so a store should save it
        /// along with handing the pushes to APNs).
        public var stateChanged = false
        /// Printers whose state `fireDue` changed.
        public var changedPrinters: Set<String> = []
        /// Prints that ended in this plan, for the history.
        public var prints: [PrintRecord] = []

        mutating func add(_ builder: PushBuilder) {
            pushes += builder.plan.pushes
            prints += builder.plan.prints
            failures += builder.plan.failures
            endedActivities += builder.plan.endedActivities
        }
    }

    public struct ActivityEnd: Hashable, Sendable {
        public var deviceID: String
        public var prefix: String
        /// The ended activity's update token.
        public var token: String

        public init(deviceID: String, prefix: String, token: String) {
            self.deviceID = deviceID
            self.prefix = prefix
            self.token = token
        }
    }

    public init(configuration: PlannerConfiguration = .init(), restoring state: [String: PrinterNotificationState] = [:]) {
        self.configuration = configuration
        self.printers = state
    }

    /// - Parameter milestonesAllowed: false while applying a snapshot in which
    ///   the printer's status is no longer active: a print that finished while
    ///   the agent was away gets its "complete", not the milestones it passed.
    public mutating func plan(
        _ change: PrinterChange, devices: [Device], now: EpochTime, milestonesAllowed: Bool = true
    ) -> Plan {
        let prefix = change.prefix
        let before = printers[prefix] ?? PrinterNotificationState()
        var state = before
        var builder = PushBuilder(configuration: configuration, snapshot: change.current, devices: devices, now: now)
        builder.printID = state.printID
        var liveActivityHandled = false

        if let status = change.current.status, status != state.lastSeenStatus {
            liveActivityHandled = see(status, state: &state, builder: &builder)
        }
        if state.held?.status == .paused, AlertReason.isComplete(forPause: builder.snapshot) {
            // The pause's reason is in: tell it now rather than at the window's end.
            state.held = nil
            liveActivityHandled = act(on: .paused, state: &state, builder: &builder) || liveActivityHandled
        }
        if change.field == .status { noteSilence(state: &state, builder: &builder) }
        if change.field == .printerErrors, let errors = change.current.printerErrors {
            see(errors, state: &state, builder: builder)
        }
        if change.field == .bedTemp { checkBedCooled(state: &state, builder: &builder) }

        if change.field == .progress, change.current.progress != change.previous.progress, state.held == nil {
            checkMilestones(state: &state, builder: &builder, alerting: milestonesAllowed)
        }

        if !liveActivityHandled, state.liveActivityDue == nil, state.held == nil,
            state.lastStatus?.isActive == true, builder.hasLiveActivities,
            change.current.contentState(status: state.lastStatus) != change.previous.contentState(status: state.lastStatus)
        {
            // Routine change: schedule, don't send. `fireDue` sends the latest values
            // once the burst has settled and the throttle interval has passed.
            let settled = now + configuration.liveActivitySettle
            let allowed = state.lastLiveActivityPush.map { $0 + configuration.liveActivityInterval } ?? settled
            state.liveActivityDue = max(settled, allowed)
        }

        printers[prefix] = state
        var plan = Plan()
        plan.add(builder)
        plan.stateChanged = state != before
        return plan
    }

    /// A new status seen. Returns whether it took care of the Live Activity.
    private mutating func see(_ status: PrintStatus, state: inout PrinterNotificationState, builder: inout PushBuilder) -> Bool {
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
    private func act(on status: PrintStatus, state: inout PrinterNotificationState, builder: inout PushBuilder) -> Bool {
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
        guard let last = state.lastStatus, let transition = Transition(from: last, to: status) else { return false }
        apply(transition, state: &state, builder: &builder, reason: lostWhileAway ? .reasonOffline : nil)
        return true
    }

    /// An integration's bus event about a printer. A failure announced
    /// (raised before the status entity turns `failed`) is told once a
    /// cancel code in the next report has had `announcedFailureWait` after
    /// the failed status, not after the whole cancel window; a cancel is the
    /// cache's (it counts as the code).
    public mutating func printerEvent(
        _ event: PrinterBusEvent, prefix: String, printers snapshots: PrinterCache, devices: [Device], now: EpochTime
    ) -> Plan {
        guard event == .failed, let before = printers[prefix], let snapshot = snapshots[prefix] else { return Plan() }
        var state = before
        var plan = Plan()
        if let held = state.held, held.status == .failed {
            // The failure was held for the whole cancel window from when it
            // was seen (the agent's clock, as `held.due`).
            let seen = held.due + -configuration.cancelWindow
            let due = max(now, seen + HoldRule.Window.announcedFailure.seconds(in: configuration))
            if due <= now {
                var builder = PushBuilder(configuration: configuration, snapshot: snapshot, devices: devices, now: now)
                builder.printID = state.printID
                state.held = nil
                act(on: .failed, state: &state, builder: &builder)
                plan.add(builder)
            } else {
                state.held?.due = min(held.due, due)
            }
        } else if let status = state.lastSeenStatus, status.isActive || status == .preparing {
            // Before the status: the failed status that follows is told soon.
            state.failureAnnounced = now
        }
        printers[prefix] = state
        plan.stateChanged = state != before
        return plan
    }

    /// The earliest time scheduled work is due, if any.
    public var nextDue: EpochTime? {
        printers.values.compactMap(\.nextDue).min()
    }

    /// Does the scheduled work due at or before `time`, one deadline at a
    /// time, earliest first, each stamped with its own due time: held
    /// verdicts are acted on, new printer errors and an offline printer
    /// told, and routine Live Activity updates carry the printer's latest
    /// values. What one deadline does (a start told, a hold settled) is
    /// there for the next, so replay, which calls this only when a message
    /// comes, gives what `run`, woken at each deadline, gives.
    public mutating func fireDue(upTo time: EpochTime, printers snapshots: PrinterCache, devices: [Device]) -> Plan {
        var plan = Plan()
        while let (prefix, dueTime) = earliestDue(upTo: time), var state = printers[prefix] {
            let snapshot = snapshots[prefix] ?? PrinterSnapshot(prefix: prefix)
            var builder = PushBuilder(configuration: configuration, snapshot: snapshot, devices: devices, now: dueTime)
            builder.printID = state.printID
            if let held = state.held, held.due <= dueTime {
                state.held = nil
                act(on: held.status, state: &state, builder: &builder)
            }
            if let errorsDue = state.errorsDue, errorsDue <= dueTime {
                tellNewErrors(state: &state, builder: &builder)
            }
            if let silence = state.silence, let silenceDue = silence.due, silenceDue <= dueTime {
                tellOffline(silence, state: &state, builder: &builder)
            }
            if let updateDue = state.liveActivityDue, updateDue <= dueTime {
                state.liveActivityDue = nil
                if state.lastStatus?.isActive == true, state.held == nil,
                    builder.liveActivityUpdate(priority: 5)
                {
                    state.lastLiveActivityPush = dueTime
                }
            }
            printers[prefix] = state
            plan.add(builder)
            plan.changedPrinters.insert(prefix)
            // Every item due by now was done or moved later; never loop on one.
            if let next = state.nextDue, next <= dueTime { break }
        }
        plan.stateChanged = !plan.changedPrinters.isEmpty
        return plan
    }

    /// The printer whose next scheduled work is the earliest at or before `time`.
    private func earliestDue(upTo time: EpochTime) -> (String, EpochTime)? {
        var earliest: (String, EpochTime)?
        for (prefix, state) in printers {
            guard let due = state.nextDue, due <= time else { continue }
            if let best = earliest, best.1 < due || (best.1 == due && best.0 < prefix) { continue }
            earliest = (prefix, due)
        }
        return earliest
    }

    /// Forgets a printer's memory (e.g. the printer was removed from HA).
    public mutating func forget(_ prefix: String) {
        printers[prefix] = nil
    }

    private func apply(
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
            builder.alert(.started, status: .running)
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
            }
            state.pauseToldTo = builder.alert(.paused, status: .paused)
            // A milestone crossed by the reading that came with the pause:
            // the paused alert carries that progress, the others hear it.
            checkMilestones(state: &state, builder: &builder, alerting: true, skipping: state.pauseToldTo)
            absorbErrors(state: &state, snapshot: builder.snapshot)
            immediateUpdate(.paused, state: &state, builder: &builder)
        case .complete, .failed, .cancelled:
            let status = builder.snapshot.status.flatMap { $0.isTerminal ? $0 : nil } ?? transition.terminalStatus
            builder.alert(transition.alertEvent!, status: status, reason: reason)
            state.pauseToldTo = []
            state.silence = nil
            absorbErrors(state: &state, snapshot: builder.snapshot)
            if status == .complete, let bed = builder.snapshot.bedTemp, bed >= configuration.bedCooledBelow {
                state.bedCoolingSince = now
            }
            builder.liveActivityEnd(status: status)
            state.lastLiveActivityPush = nil
            state.liveActivityDue = nil
            record(transition, status: status, state: state, builder: &builder, offline: reason == .reasonOffline)
        case .abandoned:
            builder.liveActivityEnd(status: .idle)
            state.lastLiveActivityPush = nil
            state.liveActivityDue = nil
            state.pauseToldTo = []
            state.silence = nil
            record(transition, status: .idle, state: state, builder: &builder)
        }
    }

    /// The ended print, for the history: its readings as the last pushes told them.
    private func record(
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
    }

    /// "<prefix>-<seconds>": when the printer's status last changed by HA's
    /// `last_changed`, which stays the same however often PrintBridge
    /// restarts and re-reads it (else now).
    static func printID(_ snapshot: PrinterSnapshot, now: EpochTime) -> String {
        "\(snapshot.prefix)-\((snapshot.changedAt[.status] ?? now).wholeSeconds)"
    }

    /// A status change reaches the Lock Screen at once, at priority 10, and
    /// makes any scheduled routine update unnecessary.
    /// It shows the status of the change (a start told late, when the print
    /// was already cancelled, shows running; its end follows).
    private func immediateUpdate(
        _ status: PrintStatus, state: inout PrinterNotificationState, builder: inout PushBuilder
    ) {
        state.liveActivityDue = nil
        if builder.liveActivityUpdate(priority: 10, status: status) { state.lastLiveActivityPush = builder.now }
    }

    /// The first status seen: no alert. A print already under way takes its
    /// current progress as the milestone baseline, so nothing behind it fires.
    private func takeBaseline(
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

    // MARK: - A printer gone quiet

    /// The printer of a print went quiet, or is back. Quiet for
    /// `offlineWindow`, the print is told as offline (`tellOffline`); back
    /// printing, the phones told hear it quietly; back without the print,
    /// its end says it was lost while the printer was away (`act`).
    private func noteSilence(state: inout PrinterNotificationState, builder: inout PushBuilder) {
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
                idName: "\(state.printID ?? builder.prefix)|back_online|\(silence.since.wholeSeconds)")
        }
        state.silence = nil
    }

    /// "Printer Offline", once, if the printer is still quiet and its print
    /// still under way.
    private func tellOffline(
        _ silence: PrinterNotificationState.Silence, state: inout PrinterNotificationState, builder: inout PushBuilder
    ) {
        var silence = silence
        silence.due = nil
        defer { state.silence = silence }
        guard builder.snapshot.silentSince != nil, let status = state.lastStatus, status.isActive || status == .preparing
        else { return }
        silence.toldTo = builder.alert(
            .offline, status: status, idName: "\(state.printID ?? builder.prefix)|offline|\(silence.since.wholeSeconds)")
    }

    // MARK: - Printer errors and the bed

    /// The printer's errors as HA now lists them. New ones are told
    /// after the reason window (a pause or failure in it takes them as its
    /// reason instead); one that went away and is back within the flicker
    /// window is the same error; on first sight they are a baseline, unless
    /// they appeared after PrintBridge began watching.
    private func see(_ errors: [PrinterError], state: inout PrinterNotificationState, builder: PushBuilder) {
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
    private func tellNewErrors(state: inout PrinterNotificationState, builder: inout PushBuilder) {
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
            builder.printerErrorAlert(error)
            told.insert(error.code)
        }
        state.toldErrors = told
    }

    /// Printer errors there when a pause or failure is told belong to it.
    private func absorbErrors(state: inout PrinterNotificationState, snapshot: PrinterSnapshot) {
        guard let errors = snapshot.printerErrors else { return }
        state.toldErrors = (state.toldErrors ?? []).union(errors.map(\.code))
        state.errorsDue = nil
    }

    /// "Ready to Remove" once after a finish, when the bed has cooled below the setting.
    private func checkBedCooled(state: inout PrinterNotificationState, builder: inout PushBuilder) {
        guard let since = state.bedCoolingSince, state.lastStatus?.isActive != true, state.held == nil,
            let bed = builder.snapshot.bedTemp, bed < configuration.bedCooledBelow
        else { return }
        state.bedCoolingSince = nil
        builder.bedCooledAlert(temperature: bed, minutes: max(1, Int(((builder.now - since) / 60).rounded())))
    }

    /// Sends the highest milestone crossed since the last reading of this print, once.
    private func checkMilestones(
        state: inout PrinterNotificationState, builder: inout PushBuilder, alerting: Bool, skipping: Set<String> = []
    ) {
        guard state.lastStatus?.isActive == true, let progress = builder.snapshot.progress else { return }
        guard let reference = state.milestoneReference else {
            // First reading of a print first seen mid-way: a baseline, not a crossing.
            state.milestoneReference = progress
            state.milestonesSent.formUnion(configuration.milestones.filter { Double($0) <= progress })
            return
        }
        let crossed = configuration.milestones.filter {
            Double($0) > reference && Double($0) <= progress && !state.milestonesSent.contains($0)
        }
        state.milestoneReference = progress
        guard let highest = crossed.max() else { return }
        state.milestonesSent.formUnion(crossed)
        // While paused, the phones that heard of the pause saw its progress.
        let told = skipping.isEmpty && state.lastStatus == .paused ? state.pauseToldTo : skipping
        if alerting { builder.alert(.milestone, status: state.lastStatus ?? .running, milestone: highest, skipping: told) }
    }
}
