/// The whole middle of PrintBridge: printer news in, pushes out.
///
/// Cache → planner, with time from an injected clock. What comes in has
/// been read and matched by `HAFrameReader`; `replay`, the daemon and the
/// tests all drive this same type through `handle(_:)`.
public struct PrinterPipeline: Sendable {
    public private(set) var cache = PrinterCache()
    public private(set) var planner: PushPlanner
    public var devices: [Device]
    public private(set) var statistics = PipelineStatistics()
    private let clock: any EpochClock

    public init(planner: PushPlanner = PushPlanner(), devices: [Device], clock: any EpochClock) {
        self.planner = planner
        self.devices = devices
        self.clock = clock
    }

    /// What one input produced.
    public struct Output: Hashable, Sendable {
        public var pushes: [Push] = []
        public var endedActivities: [PushPlanner.ActivityEnd] = []
        public var failures: [String] = []
        /// Printers whose notification state changed and should be saved.
        public var changedPrinters: Set<String> = []
        /// Prints that ended, for the history (saved with the printers' state).
        public var prints: [PrintRecord] = []
        /// Background pushes not sent: the phone had its hourly allowance.
        public var limited: [Push] = []
        /// Whether the alerts held for quiet hours changed (`PushPlanner.heldAlerts`, to save).
        public var heldChanged = false
        /// Whether the alerts waiting to be told again changed (`PushPlanner.retells`, to save).
        public var retellsChanged = false

        public init() {}

        mutating func add(_ plan: PushPlanner.Plan, prefix: String?) {
            pushes += plan.pushes
            prints += plan.prints
            failures += plan.failures
            endedActivities += plan.endedActivities
            limited += plan.limited
            heldChanged = heldChanged || plan.heldChanged
            retellsChanged = retellsChanged || plan.retellsChanged
            if plan.stateChanged, let prefix { changedPrinters.insert(prefix) }
        }
    }

    /// Applies APNs's verdict on a token: a dead (`remove`) device token removes
    /// its device, a wrong one (`disable`) disables it; a refused Live Activity
    /// or push-to-start token is dropped. Returns what changed, for the log.
    @discardableResult
    public mutating func applyTokenRejection(token: String, action: PushOutcome.TokenAction) -> [String] {
        var changes: [String] = []
        let short = TokenFormat.shortened(token)
        if let index = devices.firstIndex(where: { $0.apnsToken == token }) {
            switch action {
            case .remove:
                changes.append("device \(devices[index].id) (\(short)) removed")
                devices.remove(at: index)
            case .disable:
                devices[index].isDisabled = true
                changes.append("device \(devices[index].id) (\(short)) disabled")
            }
        }
        for index in devices.indices {
            for (prefix, activity) in devices[index].activityTokens where activity == token {
                devices[index].activityTokens[prefix] = nil
                changes.append("Live Activity token \(short) for \(prefix) dropped")
            }
            if devices[index].pushToStartToken == token {
                devices[index].pushToStartToken = nil
                changes.append("push-to-start token \(short) dropped")
            }
        }
        return changes
    }

    /// Each printer's broadcast channel (the agent's `ChannelKeeper`).
    public mutating func setChannels(_ channels: [String: String]) {
        planner.channels = channels
    }

    /// When the next scheduled push (a throttled Live Activity update) is due.
    public var nextDue: EpochTime? { planner.nextDue }

    /// New notification settings (a settings reload); what each printer was
    /// last notified of is kept, so nothing is repeated.
    public mutating func reconfigure(_ configuration: PlannerConfiguration) {
        planner.configuration = configuration
    }

    /// Sends the scheduled work due at or before `time`: throttled Live
    /// Activity updates and verdicts held back for a moment (docs/BEHAVIOUR.md).
    /// The daemon calls this from a timer; replay calls it before each input
    /// with the input's time, and with `.distantFuture` at the end.
    public mutating func fireDue(upTo time: EpochTime) -> Output {
        var output = Output()
        guard let next = planner.nextDue, next <= time else { return output }
        let plan = planner.fireDue(upTo: time, printers: cache, devices: devices)
        output.add(plan, prefix: nil)
        output.changedPrinters = plan.changedPrinters
        spend(plan.endedActivities)
        statistics.pushes += plan.pushes.count
        return output
    }

    /// The app opened the alert `apnsID`: it is not told again (`PushPlanner.opened`).
    @discardableResult
    public mutating func opened(apnsID: String) -> Bool { planner.opened(apnsID: apnsID) }

    /// A test alert to the registered phone `deviceID`, now (`PushPlanner.testPush`),
    /// and the language its texts are in; nil when no phone of that id can
    /// take alerts (none, or APNs refused its token).
    public mutating func testPush(to deviceID: String) -> (output: Output, language: String)? {
        guard let device = devices.first(where: { $0.id == deviceID }) else { return nil }
        var output = Output()
        output.add(planner.testPush(to: device, now: clock.now()), prefix: nil)
        guard !output.pushes.isEmpty else { return nil }
        statistics.pushes += output.pushes.count
        return (output, planner.configuration.catalog(for: device).language)
    }

    public mutating func handle(_ input: PrinterInput) -> Output {
        var output = Output()
        switch input.kind {
        case .entity(let match, let state, let old):
            // HA's previous state is the first value seen of a field we know
            // nothing of yet (a recording that starts with events): it is the
            // baseline the new state is judged against. Transitions are
            // otherwise judged against the cache, never against old_state.
            if let old, cache[match.prefix]?.hasValue(for: match.field) != true {
                apply(match, state: old, into: &output)
            }
            apply(match, state: state, into: &output)
        case .snapshot(let matched):
            // Status last, so a printer first seen in a snapshot takes its
            // baseline with every other field already known (and an `end`
            // carries real final values). Milestones are not alerted for a
            // printer whose status in this snapshot is no longer active.
            var finished: Set<String> = []
            for entry in matched where entry.match.field == .status {
                if let status = entry.match.profile.status(raw: entry.state.state), !status.isActive {
                    finished.insert(entry.match.prefix)
                }
            }
            for entry in matched where entry.match.field != .status {
                apply(entry.match, state: entry.state, into: &output, milestonesAllowed: !finished.contains(entry.match.prefix))
            }
            for entry in matched where entry.match.field == .status {
                apply(entry.match, state: entry.state, into: &output)
            }
        case .notify(let request):
            switch request {
            case .success(let request):
                output.add(planner.notify(request, printers: cache, devices: devices, now: clock.now()), prefix: nil)
            case .failure(let problem):
                output.failures.append(problem.text)
            }
        case .printerEvent(let prefix, let type):
            // What the event says is the printer's integration's to tell.
            guard let event = cache[prefix]?.profile.busEvent(type) else { break }
            let now = clock.now()
            if let change = cache.apply(event, prefix: prefix, at: now) {
                plan(change, now: now, into: &output)
            }
            output.add(planner.printerEvent(event, prefix: prefix, printers: cache, devices: devices, now: now), prefix: prefix)
        }
        statistics.pushes += output.pushes.count
        return output
    }

    private mutating func apply(
        _ match: EntityMatch, state: HAState, into output: inout Output, milestonesAllowed: Bool = true
    ) {
        let now = clock.now()
        guard let change = cache.apply(match, state: state, at: now) else { return }
        plan(change, now: now, into: &output, milestonesAllowed: milestonesAllowed)
    }

    private mutating func plan(_ change: PrinterChange, now: EpochTime, into output: inout Output, milestonesAllowed: Bool = true) {
        statistics.printerChanges += 1
        let plan = planner.plan(change, devices: devices, now: now, milestonesAllowed: milestonesAllowed)
        output.add(plan, prefix: change.prefix)
        spend(plan.endedActivities)
    }

    /// An ended activity's update token is spent.
    private mutating func spend(_ ended: [PushPlanner.ActivityEnd]) {
        for end in ended {
            if let index = devices.firstIndex(where: { $0.id == end.deviceID }) {
                devices[index].activityTokens[end.prefix] = nil
                devices[index].channelPrinters.remove(end.prefix)
            }
        }
    }
}

/// Counters for logs, metrics and the benchmark.
public struct PipelineStatistics: Hashable, Sendable {
    public var printerChanges = 0
    public var pushes = 0

    public init() {}
}
