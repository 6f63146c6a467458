import HeapModule
import Synchronization

#if canImport(Glibc)
import CGlibcExtras
import Glibc
#endif

/// Work run one item after another, in the order given (or at the time
/// given), on one thread that sleeps in `poll` until an item comes or the
/// next timed one is due: the agent's serial queues (the store's) and its
/// executor, without libdispatch.
///
/// Why not `DispatchQueue`: libdispatch on Linux wakes its manager thread
/// every second while any of its worker pools exists (a stall monitor,
/// swift-corelibs-libdispatch src/event/workqueue.c,
/// `_dispatch_workq_monitor_pools`), so an idle agent built on it never
/// sleeps.
public final class WorkQueue: Sendable {
    public typealias Work = @Sendable () -> Void

    private struct Timed: Comparable {
        var deadline: UInt64  // CLOCK_MONOTONIC, ns
        var order: UInt64
        var work: Work
        static func < (a: Timed, b: Timed) -> Bool { (a.deadline, a.order) < (b.deadline, b.order) }
        static func == (a: Timed, b: Timed) -> Bool { a.deadline == b.deadline && a.order == b.order }
    }

    private struct State {
        var ready: [Work] = []
        var timed = Heap<Timed>()
        var order: UInt64 = 0
        /// The thread is (about to be) in `poll`: new work must wake it.
        var sleeping = false
        var stopping = false
        /// The thread serving the queue, while it does.
        var server: pthread_t?
    }

    private let state = Mutex(State())
    private let wake: Int32
    private let thread = Mutex<NamedThread?>(nil)

    public init() {
        wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(wake >= 0, "eventfd: \(String(cString: strerror(errno)))")
    }

    deinit { close(wake) }

    /// Serves the queue on a new thread called `name`.
    public func start(named name: String) throws(NamedThread.StartError) {
        let started = try NamedThread(name) { [self] in serve() }
        thread.withLock { $0 = started }
    }

    /// Serves the queue on the calling thread until `stop`.
    public func serveHere() { serve() }

    /// Runs `work` after everything given before it.
    public func async(_ work: @escaping Work) {
        let wakeUp = state.withLock { state -> Bool in
            state.ready.append(work)
            defer { state.sleeping = false }
            return state.sleeping
        }
        if wakeUp { signal() }
    }

    /// Runs `work` once `seconds` have passed (monotonic time).
    public func async(after seconds: Double, _ work: @escaping Work) {
        let delay = UInt64(max(0, seconds) * 1e9)
        async(afterNanoseconds: delay, work)
    }

    public func async(afterNanoseconds delay: UInt64, _ work: @escaping Work) {
        let deadline = Self.now() &+ delay
        let wakeUp = state.withLock { state -> Bool in
            state.order &+= 1
            state.timed.insert(Timed(deadline: deadline, order: state.order, work: work))
            // A new earliest deadline shortens the sleep.
            guard state.sleeping, state.timed.min?.order == state.order else { return false }
            state.sleeping = false
            return true
        }
        if wakeUp { signal() }
    }

    /// Runs what is due now, then ends the thread (joined, unless this is
    /// it); timed work not yet due is dropped. Safe from any thread.
    public func stop() {
        let onItsThread = state.withLock { state -> Bool in
            state.stopping = true
            return state.server.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        }
        signal()
        let running = thread.withLock { thread in defer { thread = nil }; return thread }
        if !onItsThread { running?.join() }
    }

    private func serve() {
        state.withLock { $0.server = pthread_self() }
        defer { state.withLock { $0.server = nil } }
        var descriptor = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        while true {
            let (work, timeout, stopping) = state.withLock { state -> ([Work], Int32, Bool) in
                let now = Self.now()
                while let first = state.timed.min, first.deadline <= now {
                    state.ready.append(state.timed.removeMin().work)
                }
                if !state.ready.isEmpty {
                    defer { state.ready.removeAll(keepingCapacity: true) }
                    return (state.ready, 0, false)
                }
                if state.stopping { return ([], 0, true) }
                state.sleeping = true
                guard let first = state.timed.min else { return ([], -1, false) }
                // Rounded up to the next millisecond: never woken before it is due.
                return ([], Int32(min(UInt64(Int32.max), (first.deadline - now + 999_999) / 1_000_000)), false)
            }
            if stopping { return }
            for item in work { item() }
            guard work.isEmpty else { continue }
            if poll(&descriptor, 1, timeout) > 0 {
                var value: UInt64 = 0
                _ = read(wake, &value, MemoryLayout<UInt64>.size)
            }
            state.withLock { $0.sleeping = false }
        }
    }

    private func signal() {
        var one: UInt64 = 1
        _ = write(wake, &one, MemoryLayout<UInt64>.size)
    }

    /// CLOCK_MONOTONIC in nanoseconds.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
