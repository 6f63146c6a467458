import Synchronization

/// Outcomes from `PushSender.send(_:to:)`, for one async reader: `next()`
/// returns every outcome that came since it last returned, and waits only
/// when none has. One wake-up for however many answers arrived together,
/// where a task group woke its reader once a push.
public final class PushAnswers: PushOutcomeReceiver {
    public typealias Answer = (tag: Int, outcome: PushOutcome)

    private struct State {
        var ready: [Answer] = []
        var reader: CheckedContinuation<[Answer], Never>?
        /// `reader` is set: tested on every answer, where looking at the
        /// optional continuation itself copied it.
        var waiting = false
    }

    private let state = Mutex(State())

    public init() {}

    public func received(_ outcome: PushOutcome, tag: Int) {
        let handOver = state.withLock { state -> (CheckedContinuation<[Answer], Never>, [Answer])? in
            state.ready.append((tag, outcome))
            return Self.wakeReader(&state)
        }
        if let (reader, answers) = handOver { reader.resume(returning: answers) }
    }

    /// The waiting reader and what it takes, if one waits: answers that
    /// come before it has run again go to its next call, no wake-up each.
    private static func wakeReader(_ state: inout State) -> (CheckedContinuation<[Answer], Never>, [Answer])? {
        guard state.waiting, let reader = state.reader.take() else { return nil }
        state.waiting = false
        return (reader, take(&state))
    }

    /// The outcomes that came since the last call (at least one), waiting
    /// for the first if none has. One reader at a time.
    public func next() async -> [Answer] {
        if let answers = state.withLock({ $0.ready.isEmpty ? nil : Self.take(&$0) }) { return answers }
        return await withCheckedContinuation { reader in
            let answers = state.withLock { state -> [Answer]? in
                guard !state.ready.isEmpty else {
                    state.reader = reader
                    state.waiting = true
                    return nil
                }
                return Self.take(&state)
            }
            if let answers { reader.resume(returning: answers) }
        }
    }

    /// Hands the ready answers over; the next round starts with room for
    /// as many (one allocation a round, not one each time the array fills).
    private static func take(_ state: inout State) -> [Answer] {
        let taken = state.ready
        state.ready = []
        state.ready.reserveCapacity(max(16, taken.count))
        return taken
    }
}
