import PrintBridgeCore

/// The order in which `replay --send` sends a recording's pushes: a sliding
/// window rather than batches. Up to `limit` pushes are in flight on the one
/// HTTP/2 connection; as soon as one is answered the next may start, so the
/// connection never drains between batches (batches of 1,000 with a barrier
/// left it idle at each batch's slowest answer).
///
/// What a phone sees stays as in the recording: a push waits while an earlier
/// one to the same token is still in flight (two to one phone are never sent
/// together, so APNs gets them in order), and none starts before it is due.
/// Outcomes are handed back in the recording's order, however the answers
/// came, so the output reads the same as the plan.
public struct SendWindow<Outcome> {
    public let limit: Int
    private let tokens: [String]
    private let due: [EpochTime]
    /// The next push to start (all before it have started).
    public private(set) var next = 0
    /// Outcomes handed back so far (all before it, in order).
    public private(set) var handedBack = 0
    public private(set) var inFlight = 0
    private var busyTokens: Set<String> = []
    /// Outcomes answered but not yet handed back, by push (a slot each: no
    /// dictionary, no array made per answer).
    private var answered: [Outcome?]

    /// `tokens[i]` and `due[i]`: push i's device token and when it may go.
    public init(tokens: [String], due: [EpochTime], limit: Int = 1000) {
        precondition(tokens.count == due.count && limit > 0)
        self.tokens = tokens
        self.due = due
        self.limit = limit
        answered = Array(repeating: nil, count: tokens.count)
    }

    /// Every push was started and every outcome handed back.
    public var isDone: Bool { handedBack == tokens.count }

    /// When the next push is due, if one is left to start.
    public var nextDue: EpochTime? { next < due.count ? due[next] : nil }

    /// The next push that may start at `now` (room in the window, due, its
    /// phone free), now counted in flight; nil when none may yet.
    public mutating func start(at now: EpochTime) -> Int? {
        guard next < tokens.count, inFlight < limit, due[next] <= now, !busyTokens.contains(tokens[next]) else { return nil }
        busyTokens.insert(tokens[next])
        inFlight += 1
        next += 1
        return next - 1
    }

    /// Push `index` was answered (its outcome waits until those before it
    /// are handed back: `nextInOrder`).
    public mutating func finish(_ index: Int, _ outcome: Outcome) {
        precondition(index < next && index >= handedBack && answered[index] == nil, "push \(index) was not in flight")
        inFlight -= 1
        busyTokens.remove(tokens[index])
        answered[index] = outcome
    }

    /// The next outcome in the recording's order, if it was answered.
    public mutating func nextInOrder() -> (index: Int, outcome: Outcome)? {
        guard handedBack < answered.count, let outcome = answered[handedBack] else { return nil }
        answered[handedBack] = nil
        handedBack += 1
        return (handedBack - 1, outcome)
    }
}
