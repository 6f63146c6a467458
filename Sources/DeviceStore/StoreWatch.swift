import CGlibcExtras
import NamedThreads
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Says when a file in the store's directory is written: another process
/// committing (`printbridge devices add`), or this one. SQLite has no
/// cross-process notification, and asking it (`PRAGMA data_version`) on a
/// timer keeps a sleeping agent waking; inotify tells instead, so nothing
/// runs while nothing is written. A commit in WAL mode writes the `-wal`
/// file (a checkpoint the database file), both `IN_MODIFY` on the directory.
///
/// One thread of its own (`pb-store-watch`) sleeps in `poll` on the inotify
/// descriptor and an eventfd that `stop` writes; each burst of writes is
/// one element of `changes` (a burst not yet taken folds into the next).
public final class StoreWatch: Sendable {
    /// One element per burst of writes; ends at `stop`.
    public let changes: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let watch: Int32
    private let wake: Int32
    private let thread = Mutex<NamedThread?>(nil)

    public struct Error: Swift.Error, CustomStringConvertible {
        public var description: String
    }

    /// Watches `directory` (the store's); `start` begins telling.
    public init(directory: String) throws(Error) {
        watch = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard watch >= 0 else { throw Error(description: "inotify: \(String(cString: strerror(errno)))") }
        wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wake >= 0 else {
            close(watch)
            throw Error(description: "eventfd: \(String(cString: strerror(errno)))")
        }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE)
        guard inotify_add_watch(watch, directory, mask) >= 0 else {
            let reason = String(cString: strerror(errno))
            close(watch)
            close(wake)
            throw Error(description: "cannot watch \(directory): \(reason)")
        }
        (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    deinit {
        close(watch)
        close(wake)
    }

    /// Starts the watching thread.
    public func start() throws(NamedThread.StartError) {
        let started = try NamedThread("pb-store-watch") { [self] in serve() }
        thread.withLock { $0 = started }
    }

    /// Stops watching and ends `changes`. Safe from any thread, more than once.
    public func stop() {
        var one: UInt64 = 1
        _ = write(wake, &one, MemoryLayout<UInt64>.size)
        let running = thread.withLock { thread in defer { thread = nil }; return thread }
        running?.join()
        continuation.finish()
    }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var descriptors = [pollfd(fd: watch, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, -1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0, descriptors[1].revents == 0 else { return }
            // Every event queued so far is one change: what was written does
            // not matter, only that something was.
            while buffer.withUnsafeMutableBytes({ read(watch, $0.baseAddress, $0.count) }) > 0 {}
            continuation.yield(())
        }
    }
}
