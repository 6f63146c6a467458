import Dispatch
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
/// The inotify descriptor is a read source on libdispatch's event loop (the
/// one that holds the process's timers and signals), not a thread of its
/// own: reading it never blocks. Each burst of writes is one element of
/// `changes` (a burst not yet taken folds into the next).
public final class StoreWatch: Sendable {
    /// One element per burst of writes; ends at `stop`.
    public let changes: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let watch: Int32
    private let state = Mutex(State.ready)

    private enum State {
        case ready
        case watching(any DispatchSourceRead)
        case stopped
    }

    public struct Error: Swift.Error, CustomStringConvertible {
        public var description: String
    }

    /// Watches `directory` (the store's); `start` begins telling.
    public init(directory: String) throws(Error) {
        watch = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard watch >= 0 else { throw Error(description: "inotify: \(String(cString: strerror(errno)))") }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE)
        guard inotify_add_watch(watch, directory, mask) >= 0 else {
            let reason = String(cString: strerror(errno))
            close(watch)
            throw Error(description: "cannot watch \(directory): \(reason)")
        }
        (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    deinit { stop() }

    /// Starts telling (once; not after `stop`).
    public func start() {
        let (watch, continuation) = (self.watch, self.continuation)
        let reader = state.withLock { state -> (any DispatchSourceRead)? in
            guard case .ready = state else { return nil }
            let reader = DispatchSource.makeReadSource(fileDescriptor: watch, queue: DispatchQueue(label: "pb-store-watch"))
            reader.setEventHandler {
                // Every event queued so far is one change: what was written
                // does not matter, only that something was. The buffer holds
                // the longest event (a 255-byte name), which a read needs.
                var buffer = [UInt8](repeating: 0, count: 4096)
                while buffer.withUnsafeMutableBytes({ read(watch, $0.baseAddress, $0.count) }) > 0 {}
                continuation.yield(())
            }
            // The descriptor is closed once libdispatch has let go of it.
            reader.setCancelHandler {
                close(watch)
                continuation.finish()
            }
            state = .watching(reader)
            return reader
        }
        reader?.resume()
    }

    /// Stops watching and ends `changes`. Safe from any thread, more than once.
    public func stop() {
        let previous = state.withLock { state in defer { state = .stopped }; return state }
        switch previous {
        case .ready:
            close(watch)
            continuation.finish()
        case .watching(let reader):
            reader.cancel()
        case .stopped:
            break
        }
    }
}
