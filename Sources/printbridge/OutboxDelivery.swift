#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControlAPI
import Logging
import PrintBridgeCore
import Synchronization

/// `run`'s delivery: every push the pipeline makes goes into the outbox (in
/// memory and, in the same store transaction as the printer memory that made
/// it, on disk) and out to APNs at once; it leaves the outbox only when APNs
/// has answered it for good or it expired. `Outbox` holds the rules; this
/// class does the sending, the saving, the logging and the counting.
final class OutboxDelivery: Sendable {
    private struct State {
        var outbox: Outbox
        var lastSequence: Int
    }

    private let state: Mutex<State>
    private let sender: any PushSender
    private let writer: StoreWriter
    private let metrics: AgentMetrics
    private let logger: Logger
    private let clock: any EpochClock
    private let inFlightCount = Mutex(0)

    init(
        sender: any PushSender, writer: StoreWriter, metrics: AgentMetrics, logger: Logger,
        clock: any EpochClock = SystemClock(), outbox: Outbox = Outbox()
    ) {
        self.sender = sender
        self.writer = writer
        self.metrics = metrics
        self.logger = logger
        self.clock = clock
        // Sequences continue after the highest the store kept (`restore`).
        state = Mutex(State(outbox: outbox, lastSequence: 0))
    }

    /// Attempts handed to APNs and not yet answered.
    var inFlight: Int { inFlightCount.withLock { $0 } }

    /// Pushes kept by the last run: sent now (or settled as expired).
    func restore(_ entries: [Outbox.Entry]) {
        guard !entries.isEmpty else { return }
        logger.info("sending \(entries.count) push(es) kept from before the restart", metadata: ["outbox.count": .stringConvertible(entries.count)])
        let actions = state.withLock { state in
            state.lastSequence = max(state.lastSequence, entries.map(\.sequence).max() ?? 0)
            return state.outbox.restore(entries, now: clock.now())
        }
        carryOut(actions)
    }

    /// A change's pushes and memory: saved together, then sent.
    func submit(
        _ pushes: [Push], states: [String: PrinterNotificationState], prints: [PrintRecord],
        endedActivities: [PushPlanner.ActivityEnd]
    ) {
        let now = clock.now()
        var actions = Outbox.Actions()
        state.withLock { state in
            let entries = pushes.map { push -> Outbox.Entry in
                var push = push
                // One apns-id for every attempt, across restarts too.
                if push.apnsID == nil { push.apnsID = UUID().uuidString.lowercased() }
                state.lastSequence += 1
                return Outbox.Entry(sequence: state.lastSequence, push: push)
            }
            // Queued to the writer before any answer can settle them.
            writer.commit(states: states, prints: prints, endedActivities: endedActivities, enqueue: entries)
            for entry in entries { actions.merge(state.outbox.add(entry, now: now)) }
        }
        carryOut(actions)
    }

    /// Retries that are due (called on the loop's tick).
    func fireDue() {
        let actions = state.withLock { $0.outbox.due(at: clock.now()) }
        carryOut(actions)
        let (count, oldest) = state.withLock { ($0.outbox.count, $0.outbox.oldest) }
        metrics.outbox(count: count, oldest: oldest)
    }

    /// The backlog, for shutdown's last word.
    var backlog: Int { state.withLock { $0.outbox.count } }

    private func carryOut(_ actions: Outbox.Actions, answer: (Int, PushOutcome)? = nil) {
        if !actions.settled.isEmpty {
            writer.commit(settled: actions.settled.map(\.entry.sequence))
            for settled in actions.settled { report(settled, answer: answer) }
        }
        for entry in actions.send { send(entry) }
    }

    private func send(_ entry: Outbox.Entry) {
        inFlightCount.withLock { $0 += 1 }
        // Immediate: the request reaches the APNs thread from here, without
        // first waiting for another thread to pick the task up.
        Task.immediate { [self] in
            let started = clock.now()
            let outcome = await sender.send(entry.push)
            let seconds = clock.now() - started
            let (actions, retryAt, count) = state.withLock { state in
                let actions = state.outbox.answered(entry, outcome, now: clock.now())
                return (actions, state.outbox.nextDeadline, state.outbox.count)
            }
            metrics.attempt(answered: outcome.isAnswered, apnsSeconds: seconds)
            switch outcome {
            case .delivered, .rejected:
                RunLog.outcome(entry.push, outcome, logger)
            case .gaveUp(let cause, let attempts):
                var metadata = RunLog.metadata(entry.push)
                metadata["apns.reason"] = "\(cause)"
                metadata["push.attempts"] = .stringConvertible(attempts)
                metadata["outbox.count"] = .stringConvertible(count)
                if let retryAt { metadata["outbox.retry_in"] = .stringConvertible(max(0, Int((retryAt - clock.now()).rounded(.up)))) }
                logger.warning("APNs did not answer; the push stays in the outbox and is retried", metadata: metadata)
            }
            carryOut(actions, answer: (entry.sequence, outcome))
            inFlightCount.withLock { $0 -= 1 }
        }
    }

    /// Counts and logs a push leaving the outbox; `answer` is the APNs answer
    /// that settled it, when it was this push's own.
    private func report(_ settled: Outbox.Actions.Settled, answer: (Int, PushOutcome)?) {
        let push = settled.entry.push
        switch settled.settlement {
        case .delivered, .rejected:
            if let (sequence, outcome) = answer, sequence == settled.entry.sequence {
                metrics.push(push, outcome: outcome.name, reason: outcome.metricReason)
            } else {
                // Waiting behind a push whose token APNs refused for good.
                metrics.push(push, outcome: "rejected", reason: "TokenRefused")
                logger.warning("push dropped: APNs refused its token", metadata: RunLog.metadata(push))
            }
        case .expired:
            metrics.push(push, outcome: "expired")
            var metadata = RunLog.metadata(push)
            metadata["push.made_at"] = "\(ISO8601.format(push.createdAt))"
            logger.error("push expired before APNs could take it", metadata: metadata)
        case .superseded:
            metrics.push(push, outcome: "superseded")
            logger.info("Live Activity update superseded by a newer one while APNs was away", metadata: RunLog.metadata(push))
        }
    }
}
