import Synchronization

#if canImport(Glibc)
import CGlibcExtras
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread of the agent's own, started with a name that `top -H`, `ps -L`
/// and /proc/PID/task/*/comm show (the HA link, the APNs client and the API
/// server each own one), and joined when its owner stops.
public final class NamedThread: Sendable {
    private let handle: pthread_t
    public let name: String
    private let joined = Mutex(false)

    /// The system refused to start a thread (a resource limit).
    public struct StartError: Error, Hashable, Sendable, CustomStringConvertible {
        public var name: String
        public var code: Int32
        public var description: String {
            "cannot start the \(name) thread: \(String(cString: strerror(code)))"
        }
    }

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread called `name` (Linux keeps the first 15
    /// bytes). Throws when the thread cannot be made; nothing then runs.
    public init(_ name: String, _ body: @escaping @Sendable () -> Void) throws(StartError) {
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { context in
            let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
            NamedThread.setName(start.name)
            start.body()
            return nil
        }, start)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            throw StartError(name: name, code: result)
        }
        self.handle = handle
        self.name = name
    }

    /// Names the calling thread (Linux keeps 15 bytes; a longer name would be refused).
    private static func setName(_ name: String) {
        let bytes = Array(name.utf8.prefix(15)).map { CChar(bitPattern: $0) } + [0]
        #if os(Linux)
        _ = bytes.withUnsafeBufferPointer { pthread_setname_np(pthread_self(), $0.baseAddress!) }
        #else
        _ = bytes.withUnsafeBufferPointer { pthread_setname_np($0.baseAddress!) }
        #endif
    }

    /// Waits for the thread to end (once; later calls return at once).
    public func join() {
        let first = joined.withLock { joined in
            defer { joined = true }
            return !joined
        }
        if first { pthread_join(handle, nil) }
    }

    deinit {
        // A thread nobody joined is left to run to its end on its own.
        if !joined.withLock({ $0 }) { pthread_detach(handle) }
    }
}
