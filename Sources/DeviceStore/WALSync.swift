import NamedThreads
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Makes the store's recent commits survive a power loss, off the hot path.
///
/// The store runs SQLite in WAL mode with `synchronous = NORMAL`: a commit is
/// written to the WAL (so it survives PrintBridge crashing or being killed)
/// but not fsynced inline. This schedules one `fdatasync` of the WAL `delay`
/// seconds after commits, on a background queue, so at most that long (plus
/// the sync itself) of commits is exposed to a power loss — the policy of
/// Redis's `appendfsync everysec`, and few syncs for an SD card to wear on.
final class WALSync: Sendable {
    private let walPath: String
    private let delay: Double
    private let pending = Mutex(false)
    /// Its thread (`pb-wal-sync`) starts at the first commit.
    private let queue = WorkQueue()
    private let started = Mutex(false)

    init(databasePath: String, delay: Double = 1) {
        walPath = databasePath + "-wal"
        self.delay = delay
    }

    /// Asks for a sync soon; commits until it runs share it.
    func schedule() {
        let first = pending.withLock { scheduled in
            defer { scheduled = true }
            return !scheduled
        }
        guard first else { return }
        let running = started.withLock { started -> Bool in
            if !started { started = (try? queue.start(named: "pb-wal-sync")) != nil }
            return started
        }
        guard running else {
            // No thread to spare: the commit is synced now instead.
            pending.withLock { $0 = false }
            syncWAL()
            return
        }
        // The wait is a task's (libdispatch's timers, as every wait in the
        // agent); the sync, which blocks on the disk, is the queue's.
        Task { [self] in
            try? await Task.sleep(for: .seconds(delay))
            queue.async { [self] in
                pending.withLock { $0 = false }
                syncWAL()
            }
        }
    }

    /// Syncs now on the calling thread (on close), after a sync running on
    /// the queue has ended; one still waiting is not needed any more (the
    /// queue, stopped, drops it).
    func syncNow() {
        queue.stop()
        syncWAL()
    }

    /// fsync is per file, not per descriptor: syncing our own descriptor of
    /// the WAL flushes what SQLite's connection wrote to it.
    private func syncWAL() {
        let descriptor = open(walPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }  // no WAL (yet, or checkpointed away): nothing to sync
        fdatasync(descriptor)
        close(descriptor)
    }
}
