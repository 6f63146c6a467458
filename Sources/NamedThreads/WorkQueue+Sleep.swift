import Synchronization

extension WorkQueue {
    /// The process's timer queue (thread `pb-timers`, started at the first
    /// sleep): what the agent's waits are woken by.
    public static let timers = WorkQueue()
    private static let timersStarted = Mutex(false)

    /// Suspends the calling task for `seconds` (monotonic time), woken by
    /// `WorkQueue.timers`; throws `CancellationError` at once when the task
    /// is cancelled. `Task.sleep` instead schedules on the default
    /// executor's own timers (libdispatch's on Linux), which starts
    /// libdispatch's worker pool and with it the stall monitor that wakes
    /// the process every second (see `WorkQueue`).
    public static func sleep(seconds: Double) async throws {
        let started = timersStarted.withLock { started -> Bool in
            if !started { started = (try? timers.start(named: "pb-timers")) != nil }
            return started
        }
        guard started else {
            // No thread to spare: the runtime's own timers still work.
            try await Task.sleep(for: .nanoseconds(Int64(max(0, seconds) * 1e9)))
            return
        }
        let waiting = Mutex<Waiter>(.notYet)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelledAlready = waiting.withLock { state -> Bool in
                    if case .cancelled = state { return true }
                    state = .waiting(continuation)
                    return false
                }
                if cancelledAlready {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                timers.async(after: seconds) {
                    waiting.withLock { $0.take() }?.resume()
                }
            }
        } onCancel: {
            waiting.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard case .waiting = state else {
                    state = .cancelled
                    return nil
                }
                return state.take()
            }?.resume(throwing: CancellationError())
        }
    }

    private enum Waiter {
        case notYet
        case waiting(CheckedContinuation<Void, any Error>)
        case cancelled
        case done

        /// The continuation to resume, once: the state is done after it.
        mutating func take() -> CheckedContinuation<Void, any Error>? {
            guard case .waiting(let continuation) = self else { return nil }
            self = .done
            return continuation
        }
    }
}
