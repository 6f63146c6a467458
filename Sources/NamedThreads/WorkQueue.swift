import Synchronization

#if canImport(Glibc)
import CGlibcExtras
import Glibc
#endif

/// Blocking work run one item after another, in the order given, on one
/// named thread that sleeps in `poll` until an item comes: the store's
/// SQLite calls and the WAL's fsync.
///
/// Why a thread of its own rather than a `DispatchQueue` or a task: the
/// work blocks on the disk (an ext4 journal commit, an SD card's fsync),
/// and blocking code stays off Swift's cooperative threads and libdispatch's
/// pool, as swift-nio keeps it on `NIOThreadPool`'s threads. It has no
/// timers: whoever wants work later sleeps in a task (`Task.sleep`) and
/// hands it over then.
public final class WorkQueue: Sendable {
    public typealias Work = @Sendable () -> Void

    private struct State {
        var ready: [Work] = []
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

    /// Runs `work` after everything given before it.
    public func async(_ work: @escaping Work) {
        let wakeUp = state.withLock { state -> Bool in
            state.ready.append(work)
            defer { state.sleeping = false }
            return state.sleeping
        }
        if wakeUp { signal() }
    }

    /// Runs what was given before, then ends the thread (joined, unless
    /// this is it). Safe from any thread.
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
            let (work, stopping) = state.withLock { state -> ([Work], Bool) in
                if !state.ready.isEmpty {
                    defer { state.ready.removeAll(keepingCapacity: true) }
                    return (state.ready, false)
                }
                if state.stopping { return ([], true) }
                state.sleeping = true
                return ([], false)
            }
            if stopping { return }
            for item in work { item() }
            guard work.isEmpty else { continue }
            if poll(&descriptor, 1, -1) > 0 {
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
}
