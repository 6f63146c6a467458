/// The whole middle of PrintBridge: HA messages in, pushes out.
///
/// Matcher → cache → planner, with time from an injected clock. `replay`,
/// the daemon and the tests all drive this same type.
public struct PrinterPipeline: Sendable {
    public private(set) var matcher: EntityMatcher
    public private(set) var cache = PrinterCache()
    public private(set) var planner: PushPlanner
    public var devices: [Device]
    public private(set) var statistics = PipelineStatistics()
    /// Whether frames are pre-filtered on raw bytes (on by default; off gives
    /// the reference behaviour the filter must match).
    public var usesFrameFilter = true
    private let clock: any EpochClock

    public init(
        matcher: EntityMatcher = EntityMatcher(), planner: PushPlanner = PushPlanner(), devices: [Device],
        clock: any EpochClock
    ) {
        self.matcher = matcher
        self.planner = planner
        self.devices = devices
        self.clock = clock
    }

    /// What one message produced.
    public struct Output: Hashable, Sendable {
        public var pushes: [Push] = []
        public var endedActivities: [PushPlanner.ActivityEnd] = []
        public var failures: [String] = []
        /// Printers whose notification state changed and should be saved.
        public var changedPrinters: Set<String> = []
    }

    /// Whether a raw frame can be skipped unparsed (counted as filtered).
    public mutating func skipsFrame(_ frame: UnsafeRawBufferPointer) -> Bool {
        statistics.frames += 1
        guard usesFrameFilter, HAFrameFilter.isIrrelevant(frame, matcher: matcher) else { return false }
        statistics.filteredFrames += 1
        return true
    }

    /// Members of HA messages the pipeline does not read; skipped while parsing.
    /// `old_state` is read only for a field not yet known (see `wantsOldState`).
    public static let unreadMembers: Set<String> = ["context", "old_state"]

    /// Decodes one raw frame (one message or a coalesced array). `keepingOldState`
    /// decodes `old_state` too, for the rare event that needs it.
    public static func decode(_ frame: UnsafeRawBufferPointer, keepingOldState: Bool = false)
        throws(HAMessageError) -> [HAMessage]
    {
        let json: JSONValue
        do throws(JSONParser.Error) {
            json = try JSONParser.parse(frame, skippingKeys: keepingOldState ? ["context"] : unreadMembers)
        } catch { throw .json(error) }
        return try HAMessage.decodeAll(json)
    }

    /// Whether `message` (decoded without `old_state`) is a printer event whose
    /// field is not known yet, so its `old_state` would be the first value seen:
    /// decode the frame again with `keepingOldState` and handle that instead.
    public func wantsOldState(_ message: HAMessage) -> Bool {
        guard case .event(_, let event) = message, let change = event.stateChange, change.oldState == nil,
            change.newState != nil, let match = matcher.match(entityID: change.entityID)
        else { return false }
        return cache[match.prefix]?.hasValue(for: match.field) != true
    }

    /// The time a message speaks for: `time_fired` of an event, the newest
    /// `last_updated` of a state snapshot; nil when it carries none.
    public static func time(of message: HAMessage) -> EpochTime? {
        switch message {
        case .event(_, let event):
            return event.timeFired ?? event.stateChange?.newState?.lastUpdated
        case .result(let result):
            return result.states()?.states.compactMap(\.lastUpdated).max()
        default:
            return nil
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

    /// When the next scheduled push (a throttled Live Activity update) is due.
    public var nextDue: EpochTime? { planner.nextDue }

    /// New notification settings (a settings reload); what each printer was
    /// last notified of is kept, so nothing is repeated.
    public mutating func reconfigure(_ configuration: PlannerConfiguration) {
        planner.configuration = configuration
    }

    /// Sends the scheduled pushes due at or before `time`. The daemon calls
    /// this from a timer; replay calls it before each message with the
    /// message's time, and with `.distantFuture` at the end.
    public mutating func fireDue(upTo time: EpochTime) -> Output {
        var output = Output()
        guard let next = planner.nextDue, next <= time else { return output }
        let due = Set(planner.printers.compactMap { prefix, state in
            state.liveActivityDue.map { $0 <= time ? prefix : nil } ?? nil
        })
        let plan = planner.fireDue(upTo: time, printers: cache, devices: devices)
        output.pushes = plan.pushes
        output.failures = plan.failures
        output.changedPrinters = due
        statistics.pushes += plan.pushes.count
        return output
    }

    public mutating func handle(_ message: HAMessage) -> Output {
        statistics.messages += 1
        var output = Output()
        switch message {
        case .event(_, let event):
            guard let change = event.stateChange else { return output }
            statistics.stateChanges += 1
            guard let match = matcher.match(entityID: change.entityID) else { return output }
            statistics.matchedUpdates += 1
            // A removed entity (no new state) tells us nothing new.
            guard let state = change.newState else { return output }
            // HA's previous state is the first value seen of a field we know
            // nothing of yet (a recording that starts with events): it is the
            // baseline the new state is judged against. Transitions are
            // otherwise judged against the cache, never against old_state.
            if let old = change.oldState, cache[match.prefix]?.hasValue(for: match.field) != true {
                apply(match, state: old, into: &output)
            }
            apply(match, state: state, into: &output)
        case .result(let result):
            if let entries = result.registryEntries() {
                matcher.applyRegistry(entries)
            } else if let (states, skipped) = result.states() {
                statistics.malformedStates += skipped
                // Status last, so a printer first seen in a snapshot takes its
                // baseline with every other field already known (and an `end`
                // carries real final values). Milestones are not alerted for a
                // printer whose status in this snapshot is no longer active.
                let matched = states.compactMap { state in matcher.match(entityID: state.entityID).map { ($0, state) } }
                var finished: Set<String> = []
                for (match, state) in matched where match.field == .status {
                    if let status = PrintStatus(raw: state.state), !status.isActive { finished.insert(match.prefix) }
                }
                for (match, state) in matched where match.field != .status {
                    statistics.matchedUpdates += 1
                    apply(match, state: state, into: &output, milestonesAllowed: !finished.contains(match.prefix))
                }
                for (match, state) in matched where match.field == .status {
                    statistics.matchedUpdates += 1
                    apply(match, state: state, into: &output)
                }
            }
        default:
            break
        }
        statistics.pushes += output.pushes.count
        return output
    }

    private mutating func apply(
        _ match: EntityMatch, state: HAState, into output: inout Output, milestonesAllowed: Bool = true
    ) {
        let now = clock.now()
        guard let change = cache.apply(match, state: state, at: now) else { return }
        statistics.printerChanges += 1
        let plan = planner.plan(change, devices: devices, now: now, milestonesAllowed: milestonesAllowed)
        output.pushes += plan.pushes
        output.failures += plan.failures
        if plan.stateChanged { output.changedPrinters.insert(change.prefix) }
        for ended in plan.endedActivities {
            output.endedActivities.append(ended)
            if let index = devices.firstIndex(where: { $0.id == ended.deviceID }) {
                devices[index].activityTokens[ended.prefix] = nil
            }
        }
    }
}

/// Counters for logs, metrics and the benchmark.
public struct PipelineStatistics: Hashable, Sendable {
    public var frames = 0
    public var filteredFrames = 0
    public var messages = 0
    public var stateChanges = 0
    public var matchedUpdates = 0
    public var printerChanges = 0
    public var malformedStates = 0
    public var pushes = 0

    public init() {}
}
