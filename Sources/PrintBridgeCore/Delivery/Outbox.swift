/// The pushes that have not yet had APNs's final answer, and when each goes
/// (again). A pure state machine: the daemon keeps a copy of it in the store
/// (so a restart sends what an outage held back), hands it every answer and
/// the time, and sends what it returns.
///
/// The rules:
/// - A push is settled only by APNs's answer: delivered, or rejected for
///   good. A push APNs did not answer (no connection, a timeout, 429/5xx
///   after the sender's own quick retries) stays and is tried again after a
///   back-off that doubles up to `maximumRetryDelay`, until its own
///   `apns-expiration` (alerts 24 h): then it is settled as expired.
/// - Per token, one push at a time and in the order they were made, so a
///   phone gets its alerts in order even across an outage.
/// - A Live Activity update waiting behind an outage is superseded by a
///   newer update or the end for the same token: only the latest state
///   matters. Not one that carries an alert (a pause's, a failure's just
///   before its end): it tells the user something the newer one does not,
///   and its phone's own alert went quietly.
/// - An answer from APNs (any) means APNs is back: every token waiting for
///   its retry is tried now rather than at the end of its back-off.
/// - A token APNs refused for good takes its waiting pushes with it.
/// - A push may be held for a while (an alert waiting for the picture of
///   the print): it and those behind it for the same token wait until it is
///   released (with its final payload) or its hold ends, whichever is first.
public struct Outbox: Sendable {
    public struct Entry: Sendable, Hashable {
        /// Order of making, unique in the store.
        public var sequence: Int
        public var push: Push

        public init(sequence: Int, push: Push) {
            self.sequence = sequence
            self.push = push
        }
    }

    /// How a push left the outbox.
    public enum Settlement: String, Sendable, Hashable {
        case delivered, rejected, expired, superseded
    }

    /// What the caller does next: send these, forget those (delete them from
    /// the store, count and log them).
    public struct Actions: Sendable, Hashable {
        public var send: [Entry] = []
        public var settled: [Settled] = []

        public init() {}

        public struct Settled: Sendable, Hashable {
            public var entry: Entry
            public var settlement: Settlement
        }

        mutating func settle(_ entry: Entry, _ settlement: Settlement) {
            settled.append(Settled(entry: entry, settlement: settlement))
        }

        public mutating func merge(_ other: Actions) {
            send += other.send
            settled += other.settled
        }

        public var isEmpty: Bool { send.isEmpty && settled.isEmpty }
    }

    private struct Lane: Sendable {
        /// In sequence order; the first is in flight or waiting for its retry.
        var entries: [Entry] = []
        var inFlight = false
        var failures = 0
        var retryAt: EpochTime?
        /// Held entries (by sequence) and when their hold ends.
        var holds: [Int: EpochTime] = [:]

        /// When the first entry's hold ends, if it is held.
        var firstHeldUntil: EpochTime? { entries.first.flatMap { holds[$0.sequence] } }
    }

    public var firstRetryDelay: Double
    public var maximumRetryDelay: Double
    private var lanes: [String: Lane] = [:]

    public init(firstRetryDelay: Double = 2, maximumRetryDelay: Double = 60) {
        self.firstRetryDelay = firstRetryDelay
        self.maximumRetryDelay = maximumRetryDelay
    }

    /// Pushes not yet settled.
    public var count: Int { lanes.values.reduce(0) { $0 + $1.entries.count } }

    /// When the oldest unsettled push was made.
    public var oldest: EpochTime? { lanes.values.compactMap { $0.entries.first?.push.createdAt }.min() }

    /// Pushes whose last attempt failed and that wait for a retry.
    public var waiting: Int { lanes.values.reduce(0) { $0 + ($1.retryAt == nil ? 0 : $1.entries.count) } }

    /// The next time `due(at:)` has something to do: a lane with a push in
    /// flight waits for its answer, whatever its retry time (counting it had
    /// the agent wake again and again while APNs kept a retry waiting).
    public var nextDeadline: EpochTime? {
        lanes.values.filter { !$0.inFlight }.flatMap { [$0.retryAt, $0.firstHeldUntil] }.compactMap { $0 }.min()
    }

    /// Pushes held (waiting for their picture).
    public var held: Int { lanes.values.reduce(0) { $0 + $1.holds.count } }

    /// Takes the pushes the store kept at start-up, all at once, so a Live
    /// Activity update that a later update or end made pointless is not sent.
    public mutating func restore(_ entries: [Entry], now: EpochTime) -> Actions {
        var actions = Actions()
        for entry in entries.sorted(by: { $0.sequence < $1.sequence }) {
            if entry.push.expiration <= now {
                actions.settle(entry, .expired)
                continue
            }
            var lane = lanes[entry.push.token] ?? Lane()
            if Self.supersedesUpdates(entry.push) {
                for old in lane.entries where Self.isSupersedable(old.push) {
                    actions.settle(old, .superseded)
                }
                lane.entries.removeAll { Self.isSupersedable($0.push) }
            }
            lane.entries.append(entry)
            lanes[entry.push.token] = lane
        }
        for token in lanes.keys.sorted() { actions.merge(startIfIdle(token, now: now)) }
        return actions
    }

    /// Takes a new push; held until `holdUntil` at the latest when given
    /// (`release` sends it sooner).
    public mutating func add(_ entry: Entry, now: EpochTime, holdUntil: EpochTime? = nil) -> Actions {
        var actions = Actions()
        var lane = lanes[entry.push.token] ?? Lane()
        if entry.push.expiration <= now {
            actions.settle(entry, .expired)
            return actions
        }
        if let holdUntil, holdUntil > now { lane.holds[entry.sequence] = holdUntil }
        if Self.supersedesUpdates(entry.push) {
            // The first entry may be in flight: only those behind it, or a
            // first one that is waiting for its retry, can go.
            let movable = lane.inFlight ? 1 : 0
            var kept = Array(lane.entries.prefix(movable))
            for old in lane.entries.dropFirst(movable) {
                if Self.isSupersedable(old.push) {
                    actions.settle(old, .superseded)
                } else {
                    kept.append(old)
                }
            }
            lane.entries = kept
        }
        lane.entries.append(entry)
        lanes[entry.push.token] = lane
        actions.merge(startIfIdle(entry.push.token, now: now))
        return actions
    }

    /// APNs's answer (or its absence) for an entry that was sent.
    public mutating func answered(_ entry: Entry, _ outcome: PushOutcome, now: EpochTime) -> Actions {
        let token = entry.push.token
        var actions = Actions()
        guard var lane = lanes[token], let index = lane.entries.firstIndex(where: { $0.sequence == entry.sequence })
        else { return actions }
        lane.inFlight = false
        switch outcome {
        case .delivered:
            lane.entries.remove(at: index)
            actions.settle(entry, .delivered)
            lane.failures = 0
            lane.retryAt = nil
        case .rejected(_, _, let tokenAction):
            lane.entries.remove(at: index)
            actions.settle(entry, .rejected)
            lane.failures = 0
            lane.retryAt = nil
            if tokenAction != nil {
                // The token is dead or wrong: nothing more can reach it.
                for rest in lane.entries { actions.settle(rest, .rejected) }
                lane.entries.removeAll()
                lane.holds = [:]
            }
        case .gaveUp:
            lane.failures += 1
            lane.retryAt = now + retryDelay(afterFailures: lane.failures)
        }
        lanes[token] = lane.entries.isEmpty ? nil : lane
        if lanes[token] != nil { actions.merge(startIfIdle(token, now: now)) }
        if case .gaveUp = outcome { return actions }
        // APNs answered: whoever waits for a retry need not wait longer.
        for (other, otherLane) in lanes where other != token && otherLane.retryAt != nil && !otherLane.inFlight {
            lanes[other]?.retryAt = now
            actions.merge(startIfIdle(other, now: now))
        }
        return actions
    }

    /// Retries that are due, holds that ended, and expiries.
    public mutating func due(at now: EpochTime) -> Actions {
        var actions = Actions()
        for (token, lane) in lanes where !lane.inFlight {
            if let retryAt = lane.retryAt, retryAt <= now {
                actions.merge(startIfIdle(token, now: now))
            } else if lane.retryAt == nil, let until = lane.firstHeldUntil, until <= now {
                actions.merge(startIfIdle(token, now: now))
            }
        }
        return actions
    }

    /// Ends every hold now (shutting down: an alert does not wait for its
    /// picture then); what is first in its lane goes.
    public mutating func releaseAll(now: EpochTime) -> Actions {
        var actions = Actions()
        for token in lanes.keys.sorted() where !(lanes[token]?.holds.isEmpty ?? true) {
            lanes[token]?.holds = [:]
            actions.merge(startIfIdle(token, now: now))
        }
        return actions
    }

    /// Ends the hold of a held push, with `payload` as its final body when
    /// given; it goes at once if nothing is ahead of it. False when the push
    /// is no longer held (its hold ended, or it left the outbox).
    @discardableResult
    public mutating func release(_ sequence: Int, token: String, payload: [UInt8]?, now: EpochTime) -> (
        released: Bool, actions: Actions
    ) {
        guard var lane = lanes[token], lane.holds.removeValue(forKey: sequence) != nil,
            let index = lane.entries.firstIndex(where: { $0.sequence == sequence })
        else { return (false, Actions()) }
        if let payload { lane.entries[index].push.payload = payload }
        lanes[token] = lane
        return (true, startIfIdle(token, now: now))
    }

    /// A token refused through another push: its waiting pushes go.
    public mutating func dropToken(_ token: String) -> Actions {
        var actions = Actions()
        guard var lane = lanes[token] else { return actions }
        let keep = lane.inFlight ? 1 : 0
        for entry in lane.entries.dropFirst(keep) { actions.settle(entry, .rejected) }
        lane.entries = Array(lane.entries.prefix(keep))
        lane.holds = lane.holds.filter { hold in lane.entries.contains { $0.sequence == hold.key } }
        lanes[token] = lane.entries.isEmpty ? nil : lane
        return actions
    }

    /// The wait after `failures` failed attempts in a row: doubling from
    /// `firstRetryDelay`, at most `maximumRetryDelay`.
    public func retryDelay(afterFailures failures: Int) -> Double {
        var delay = firstRetryDelay
        for _ in 1..<max(1, failures) where delay < maximumRetryDelay { delay *= 2 }
        return min(delay, maximumRetryDelay)
    }

    /// A Live Activity update or end makes earlier waiting updates pointless.
    /// A Live Activity update that only shows a state: a newer one makes it pointless.
    private static func isSupersedable(_ push: Push) -> Bool {
        push.kind == .liveActivity && push.event == .update && !push.carriesActivityAlert
    }

    private static func supersedesUpdates(_ push: Push) -> Bool {
        push.kind == .liveActivity && (push.event == .update || push.event == .end)
    }

    /// Sends the lane's first entry if nothing is in flight and no retry is
    /// pending later; expired entries at the head are settled on the way.
    private mutating func startIfIdle(_ token: String, now: EpochTime) -> Actions {
        var actions = Actions()
        guard var lane = lanes[token], !lane.inFlight else { return actions }
        if let retryAt = lane.retryAt, retryAt > now { return actions }
        while let first = lane.entries.first, first.push.expiration <= now {
            actions.settle(first, .expired)
            lane.entries.removeFirst()
            lane.holds[first.sequence] = nil
        }
        if let until = lane.firstHeldUntil, until > now {
            lanes[token] = lane
            return actions
        }
        if let first = lane.entries.first {
            lane.holds[first.sequence] = nil
            lane.inFlight = true
            actions.send.append(first)
            lanes[token] = lane
        } else {
            lanes[token] = nil
        }
        return actions
    }
}
