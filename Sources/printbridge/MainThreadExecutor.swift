import CSwiftRuntimeHooks
import NamedThreads

#if canImport(Glibc)
import Glibc
#endif

/// Swift concurrency's global executor for `run`: every task's job runs on
/// the main thread, in order (a `WorkQueue` served there), and the thread
/// sleeps until a job comes or the earliest `Task.sleep` is due.
///
/// Why not the default, libdispatch's thread pool: on Linux it wakes its
/// manager thread every second to watch the pool for stalls
/// (swift-corelibs-libdispatch src/event/workqueue.c,
/// `_dispatch_workq_monitor_pools`, armed with NSEC_PER_SEC in
/// `_dispatch_workq_init_once`), so an idle agent could never sleep: 60
/// wake-ups a minute with nothing to do. The agent's tasks are short (the C
/// libraries' loops and the store have threads of their own), so one thread
/// serves them; the main thread only waited before.
///
/// Installed through the runtime's executor hooks
/// (`swift_task_enqueueGlobal_hook`, its delay and deadline forms, and the
/// main executor's), as SwiftNIO's `NIOSingletons` installs its event loops;
/// set once, from the main thread, before any task exists.
final class MainThreadExecutor: Sendable {
    static let shared = MainThreadExecutor()
    let queue = WorkQueue()

    /// The runtime's generic executor (`SerialExecutorRef::generic()`: no
    /// identity, no implementation), which global jobs run on, as the
    /// default global executor runs them (`swift_job_run(job, generic)`).
    /// Not a `TaskExecutor` of our own: a job run on one makes every
    /// nonisolated call a hop back onto the queue, and code that holds a
    /// lock across `withUnsafeContinuation`, trusting its closure to run at
    /// once (swift-async-algorithms' `MergeStorage.next`), then waits on
    /// itself.
    private static let generic = unsafeBitCast((0, 0), to: UnownedSerialExecutor.self)

    func enqueue(_ job: UnownedJob) {
        queue.async { job.runSynchronously(on: MainThreadExecutor.generic) }
    }

    func enqueue(_ job: UnownedJob, afterNanoseconds delay: UInt64) {
        queue.async(afterNanoseconds: delay) { job.runSynchronously(on: MainThreadExecutor.generic) }
    }

    /// Serves jobs on the calling (main) thread, for good.
    func run() -> Never {
        queue.serveHere()
        fatalError("the main thread's executor stopped")
    }

    /// Makes this the global executor (and the main actor's). The hooks are
    /// the runtime's own variables, linked by name (CSwiftRuntimeHooks says
    /// why not `dlsym`).
    static func install() {
        printbridge_set_executor_hooks(
            { job, _ in MainThreadExecutor.shared.enqueue(UnownedJob(job)) },
            { delay, job, _ in MainThreadExecutor.shared.enqueue(UnownedJob(job), afterNanoseconds: delay) },
            { seconds, nanoseconds, _, _, clock, job, _ in
                // The runtime's clock ids: 1 continuous (CLOCK_BOOTTIME on Linux), 2 suspending (CLOCK_MONOTONIC).
                var now = timespec()
                clock_gettime(clock == 1 ? CLOCK_BOOTTIME : CLOCK_MONOTONIC, &now)
                let target = Int64(seconds) * 1_000_000_000 + Int64(nanoseconds)
                let delay = target - (Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))
                MainThreadExecutor.shared.enqueue(UnownedJob(job), afterNanoseconds: UInt64(max(0, delay)))
            },
            { job, _ in MainThreadExecutor.shared.enqueue(UnownedJob(job)) })
    }
}

private extension UnownedJob {
    /// A job pointer, as the runtime hands it to the hooks, is what `UnownedJob` wraps.
    init(_ job: UnsafeMutableRawPointer?) { self = unsafeBitCast(job, to: UnownedJob.self) }
}
