import Agent
import CGlibcExtras
import NamedThreads
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// `run`'s signals as a part of its `ServiceGroup`: SIGHUP re-reads the
/// settings file and the devices; SIGTERM or SIGINT ends this service,
/// which (`.gracefullyShutdownGroup`) shuts the group down gracefully, in
/// reverse order.
///
/// The signals are blocked in every thread (`block`, before any starts)
/// and read from a signalfd by a thread of their own (`pb-signals`).
/// Not swift-service-lifecycle's `UnixSignalsSequence`: on Linux it is a
/// `DispatchSource`, and its first handler starts libdispatch's worker
/// pool, whose stall monitor then wakes the idle agent every second
/// (`WorkQueue` says more).
final class SignalService: Service {
    static let handled: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    private let reload: SettingsReload
    private let inbox: AgentInbox
    private let signals: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    private let descriptor: Int32
    private let stop: Int32

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Blocks the handled signals in the calling thread and every thread it
    /// starts: call from the main thread before any other starts.
    static func block() {
        var set = Self.set()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    init(reload: SettingsReload, inbox: AgentInbox) throws(Failure) {
        self.reload = reload
        self.inbox = inbox
        var set = Self.set()
        descriptor = signalfd(-1, &set, Int32(SFD_CLOEXEC))
        guard descriptor >= 0 else { throw Failure(description: "signalfd: \(String(cString: strerror(errno)))") }
        stop = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard stop >= 0 else {
            close(descriptor)
            throw Failure(description: "eventfd: \(String(cString: strerror(errno)))")
        }
        (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
    }

    deinit {
        close(descriptor)
        close(stop)
    }

    func run() async throws {
        let reader = try NamedThread("pb-signals") { [self] in read() }
        defer {
            var one: UInt64 = 1
            _ = write(stop, &one, MemoryLayout<UInt64>.size)
            reader.join()
        }
        for await number in signals.cancelOnGracefulShutdown() {
            guard number == SIGHUP else { return }  // SIGTERM, SIGINT: the group shuts down
            if let configuration = reload.reread() { inbox.reconfigure(configuration) }
            inbox.devicesChanged()
        }
    }

    private func read() {
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
        var information = signalfd_siginfo()
        while true {
            let ready = poll(&descriptors, 2, -1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0, descriptors[1].revents == 0 else { break }
            let count = Glibc.read(descriptor, &information, MemoryLayout<signalfd_siginfo>.size)
            if count == MemoryLayout<signalfd_siginfo>.size { continuation.yield(Int32(information.ssi_signo)) }
        }
        continuation.finish()
    }

    private static func set() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handled { sigaddset(&set, number) }
        return set
    }
}
