/// Turns printer changes into pushes: which alerts and Live Activity updates
/// go to which device, and when.
///
/// A pure state machine: a change, the devices and the time go in; pushes
/// and the new per-printer memory come out. Transitions are judged against
/// the last *known* status, so HA restarts and reconnects never re-alert.
///
/// This file holds its inputs (a change, a bus event, the clock reaching a
/// deadline); what each kind of news does is in its own file beside it:
/// status transitions and held verdicts (`PushPlanner+Status`, with the
/// hold rules in `HoldRule`), printer errors (`+PrinterErrors`),
/// milestones (`+Milestones`), the bed cooling (`+BedCooled`), a printer
/// gone quiet (`+Silence`), the print history (`+History`) and the
/// background push's hourly allowance (`+Background`).
public struct PushPlanner: Sendable {
    public var configuration: PlannerConfiguration
    public private(set) var printers: [String: PrinterNotificationState]
    /// Since when the memory behind `printers` has been kept (the store's
    /// first run); nil: no memory beyond this process (replay).
    public var watchingSince: EpochTime?
    /// When each phone (by device id) was last sent background pushes,
    /// within the allowance's window (`+Background`); in memory only.
    public internal(set) var backgroundSent: [String: [EpochTime]] = [:]
    /// Each printer's Live Activity broadcast channel id (iOS 18), as the
    /// agent's `ChannelKeeper` has it: one broadcast an update goes to it
    /// for the phones that follow the printer by channel. A printer without
    /// one: every activity by its token.
    public var channels: [String: String] = [:]
    /// Alerts held for phones in their quiet hours, until they end
    /// (`+QuietHours`); the agent keeps them in the store.
    public var heldAlerts: [HeldAlert] = []
    /// Time-sensitive alerts waiting to be told again if unopened (`+Retell`);
    /// the agent keeps them in the store.
    public var retells: [Retell] = []
    /// When each printer's automation alerts went, within `notifyWindow` (`+Notify`); in memory only.
    var notifySent: [String: [EpochTime]] = [:]
    /// The phones told "N minutes left" of each printer's print (`+MinutesLeft`); in memory only.
    var minutesLeftTold: [String: (printID: String?, devices: Set<String>)] = [:]
    /// The print each printer's "First Layer Done" was told for (`+FirstLayer`); in memory only.
    var firstLayerTold: [String: String] = [:]

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
        /// Background pushes not sent: the phone had its hourly allowance.
        public var limited: [Push] = []
        /// Alerts held for phones in their quiet hours by this plan.
        public var held: [HeldAlert] = []
        /// Whether `PushPlanner.heldAlerts` changed (so a store should save it).
        public var heldChanged = false
        /// Whether `PushPlanner.retells` changed (so a store should save it).
        public var retellsChanged = false

        mutating func add(_ builder: PushBuilder) {
            held += builder.plan.held
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

    /// Seconds within which HA writes one printer report's entities (the
    /// captures: ha-bambulab 1–4 ms, HA's OctoPrint well under 1 ms).
    static let sameReport = 0.5

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
        var builder = PushBuilder(configuration: configuration, channels: channels, snapshot: change.current, devices: devices, now: now)
        builder.printID = state.printID
        var liveActivityHandled = false

        if change.field == .status { noteTimes(change.current, state: &state, now: now) }
        if let status = change.current.status, status != state.lastSeenStatus {
            liveActivityHandled = see(status, state: &state, builder: &builder)
        }
        noteSpool(change.current, state: &state)
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
        if change.field == .currentLayer { checkFirstLayer(change, state: state, builder: &builder) }
        // Whatever field moved it: a finish time's remaining time moves with
        // every change of the printer (`PrinterCache`), not only its own.
        if change.current.remainingSeconds != change.previous.remainingSeconds {
            checkMinutesLeft(change, state: state, builder: &builder)
        }

        if change.field == .progress, change.current.progress != change.previous.progress, state.held == nil {
            checkMilestones(state: &state, builder: &builder, alerting: milestonesAllowed)
        }

        if !liveActivityHandled, state.liveActivityDue == nil, state.held == nil,
            state.lastStatus?.isActive == true, builder.hasLiveActivities,
            change.current.contentState(status: state.lastStatus) != change.previous.contentState(status: state.lastStatus)
        {
            // Routine change: schedule, don't send. `fireDue` sends the latest values
            // once the burst has settled and the throttle interval has passed. A
            // change right after a status change's update is the rest of the same
            // report (HA's OctoPrint writes the state before the percentage):
            // it follows once the burst has settled, not a throttle later.
            let settled = now + configuration.liveActivitySettle
            let sameReport = state.statusUpdateAt.map { now - $0 < Self.sameReport } ?? false
            let allowed = sameReport ? settled : state.lastLiveActivityPush.map { $0 + configuration.liveActivityInterval } ?? settled
            state.liveActivityDue = max(settled, allowed)
        }

        printers[prefix] = state
        var plan = Plan()
        plan.add(builder)
        plan.stateChanged = state != before
        keepHeld(&plan)
        noteRetells(&plan, devices: devices)
        limitBackground(&plan)
        return plan
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
                var builder = PushBuilder(configuration: configuration, channels: channels, snapshot: snapshot, devices: devices, now: now)
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
        keepHeld(&plan)
        noteRetells(&plan, devices: devices)
        limitBackground(&plan)
        return plan
    }

    /// The earliest time scheduled work is due, if any: a printer's, or
    /// the end of a phone's quiet hours with alerts held.
    public var nextDue: EpochTime? {
        [
            printers.values.compactMap(\.nextDue).min(), heldAlerts.lazy.map(\.releaseAt).min(),
            retells.lazy.map(\.due).min(),
        ].compactMap { $0 }.min()
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
            var builder = PushBuilder(configuration: configuration, channels: channels, snapshot: snapshot, devices: devices, now: dueTime)
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
        keepHeld(&plan)
        releaseHeld(upTo: time, devices: devices, into: &plan)
        noteRetells(&plan, devices: devices)
        releaseRetells(upTo: time, printers: snapshots, devices: devices, into: &plan)
        limitBackground(&plan)
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

    /// "<prefix>-<seconds>": when the printer's status last changed by HA's
    /// `last_changed`, which stays the same however often PrintBridge
    /// restarts and re-reads it (else now).
    static func printID(_ snapshot: PrinterSnapshot, now: EpochTime) -> String {
        "\(snapshot.prefix)-\((snapshot.changedAt[.status] ?? now).wholeSeconds)"
    }
}
