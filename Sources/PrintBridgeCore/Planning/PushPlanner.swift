/// Turns printer changes into pushes: which alerts and Live Activity updates
/// go to which device, and when.
///
/// A pure state machine: a change, the devices and the time go in; pushes
/// and the new per-printer memory come out. Transitions are judged against
/// the last *known* status, so HA restarts and reconnects never re-alert.
public struct PushPlanner: Sendable {
    public var configuration: PlannerConfiguration
    public private(set) var printers: [String: PrinterNotificationState]

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
    }

    public struct ActivityEnd: Hashable, Sendable {
        public var deviceID: String
        public var prefix: String

        public init(deviceID: String, prefix: String) {
            self.deviceID = deviceID
            self.prefix = prefix
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
        var liveActivityHandled = false

        if let status = change.current.status, status != state.lastStatus {
            if let last = state.lastStatus {
                if let transition = Transition(from: last, to: status) {
                    apply(transition, state: &state, builder: &builder)
                    liveActivityHandled = true
                }
            } else {
                takeBaseline(status, state: &state, snapshot: change.current, now: now)
            }
            state.lastStatus = status
        }

        if change.field == .progress, change.current.progress != change.previous.progress {
            checkMilestones(state: &state, builder: &builder, alerting: milestonesAllowed)
        }

        if !liveActivityHandled, state.liveActivityDue == nil, state.lastStatus?.isActive == true,
            builder.hasLiveActivities,
            change.current.contentState(status: state.lastStatus) != change.previous.contentState(status: state.lastStatus)
        {
            // Routine change: schedule, don't send. `fireDue` sends the latest values
            // once the burst has settled and the throttle interval has passed.
            let settled = now + configuration.liveActivitySettle
            let allowed = state.lastLiveActivityPush.map { $0 + configuration.liveActivityInterval } ?? settled
            state.liveActivityDue = max(settled, allowed)
        }

        printers[prefix] = state
        var plan = builder.plan
        plan.stateChanged = state != before
        return plan
    }

    /// The earliest time a scheduled Live Activity update is due, if any.
    public var nextDue: EpochTime? {
        printers.values.compactMap(\.liveActivityDue).min()
    }

    /// Sends every routine Live Activity update due at or before `time`, each
    /// stamped with its own due time and carrying the printer's latest values.
    public mutating func fireDue(upTo time: EpochTime, printers snapshots: PrinterCache, devices: [Device]) -> Plan {
        var plan = Plan()
        var due: [(prefix: String, time: EpochTime)] = []
        for (prefix, state) in printers {
            if let dueTime = state.liveActivityDue, dueTime <= time { due.append((prefix, dueTime)) }
        }
        due.sort { $0.time < $1.time || ($0.time == $1.time && $0.prefix < $1.prefix) }
        for (prefix, dueTime) in due {
            guard var state = printers[prefix] else { continue }
            state.liveActivityDue = nil
            if let snapshot = snapshots[prefix], state.lastStatus?.isActive == true {
                var builder = PushBuilder(configuration: configuration, snapshot: snapshot, devices: devices, now: dueTime)
                if builder.liveActivityUpdate(priority: 5) { state.lastLiveActivityPush = dueTime }
                plan.pushes += builder.plan.pushes
                plan.failures += builder.plan.failures
            }
            printers[prefix] = state
            plan.stateChanged = true
        }
        return plan
    }

    /// Forgets a printer's memory (e.g. the printer was removed from HA).
    public mutating func forget(_ prefix: String) {
        printers[prefix] = nil
    }

    private func apply(_ transition: Transition, state: inout PrinterNotificationState, builder: inout PushBuilder) {
        let now = builder.now
        switch transition {
        case .started:
            state.printID = "\(builder.snapshot.prefix)-\(now.wholeSeconds)"
            state.milestonesSent = []
            state.milestoneReference = 0
            builder.alert(.started, status: .running)
            builder.pushToStart()
            immediateUpdate(state: &state, builder: &builder)
        case .resumed:
            immediateUpdate(state: &state, builder: &builder)
        case .paused:
            builder.alert(.paused, status: .paused)
            immediateUpdate(state: &state, builder: &builder)
        case .complete, .failed, .cancelled:
            let status = builder.snapshot.status ?? .complete
            builder.alert(transition.alertEvent!, status: status)
            builder.liveActivityEnd(status: status)
            state.lastLiveActivityPush = nil
            state.liveActivityDue = nil
        }
    }

    /// A status change reaches the Lock Screen at once, at priority 10, and
    /// makes any scheduled routine update unnecessary.
    private func immediateUpdate(state: inout PrinterNotificationState, builder: inout PushBuilder) {
        state.liveActivityDue = nil
        if builder.liveActivityUpdate(priority: 10) { state.lastLiveActivityPush = builder.now }
    }

    /// The first status seen: no alert. A print already under way takes its
    /// current progress as the milestone baseline, so nothing behind it fires.
    private func takeBaseline(
        _ status: PrintStatus, state: inout PrinterNotificationState, snapshot: PrinterSnapshot, now: EpochTime
    ) {
        guard status.isActive else { return }
        state.printID = "\(snapshot.prefix)-\(now.wholeSeconds)"
        state.milestonesSent = []
        state.milestoneReference = snapshot.progress
        if let progress = snapshot.progress {
            state.milestonesSent = Set(configuration.milestones.filter { Double($0) <= progress })
        }
    }

    /// Sends the highest milestone crossed since the last reading of this print, once.
    private func checkMilestones(state: inout PrinterNotificationState, builder: inout PushBuilder, alerting: Bool) {
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
        if alerting { builder.alert(.milestone, status: state.lastStatus ?? .running, milestone: highest) }
    }
}
