import DequeModule
import NamedThreads
import PrintBridgeCore
import Synchronization
import TLSEngine

/// An HTTP/2 client for one origin (APNs): requests multiplexed as streams
/// on one long-lived TLS connection (ALPN h2, TLS 1.2+), opened when the
/// first request comes and again after the server closes it.
///
/// Built on nghttp2 and OpenSSL directly rather than libcurl: libcurl 7.88
/// (Debian 12) sends RST_STREAM after every finished stream (lib/http2.c,
/// `http2_data_done` at curl-7_88_1: `stream->closed` is cleared before it is
/// tested), and a server with rapid-reset protection (nghttp2 ≥ 1.57 and
/// Debian's patched 1.52: 1,000 resets, then 33 a second) answers with
/// GOAWAY. A fan-out of 30,000 pushes opened 29 TLS connections and ran at
/// 13 % of the server's ceiling (scripts/bench/apns_benchmark.py). nghttp2 is
/// the library libcurl itself used for HTTP/2, so nothing new is loaded.
///
/// A connection that goes silent without a reset (a NAT or middlebox dropped
/// it) is replaced: when requests wait and nothing has come back for half of
/// `stallTimeout`, a PING asks; when nothing has come back for all of it, the
/// requests sent on it fail (`stalled`) and the next ones open a new
/// connection. An idle connection is probed by the kernel's TCP keepalive
/// (after 30 s idle, every 10 s). An idle client sleeps in `poll` with no
/// timeout: no timer wakes it.
///
/// All connection state lives on one named thread (`pb-apns`). Callers
/// append to a locked queue and wake that thread through an eventfd only when
/// it sleeps; answers come back through a continuation (`send(_:)`) or
/// straight to a completion on that thread (`send(_:then:)`, a fan-out's
/// way: no task a request). The one blocking call
/// a connection needs, the host name's lookup, runs beside that thread
/// (`AddressLookup`), never on it.
///
/// Lifecycle: `init` starts the thread (it sleeps until the first request);
/// `shutdown(grace:)` stops taking requests, drains those in flight for up
/// to `grace` seconds and ends the thread, blocking its caller, while
/// `await shutdown(grace:)` does the same without blocking a thread (what a
/// service's `run` awaits after its graceful-shutdown signal).
public final class HTTP2Client: @unchecked Sendable {
    // @unchecked Sendable: `connection` and `waiting` are touched only by
    // the loop thread; `shared` is behind a Mutex; the rest is immutable
    // (`wakeSignal`, `lookup` and `tls` are Sendable).
    public struct Options: Sendable {
        /// A CA bundle to trust instead of the system's (a local test server).
        public var caFile: String?
        public var connectTimeout: Double = 10
        public var requestTimeout: Double = 30
        /// Requests waiting this long with nothing at all back on the
        /// connection (not even a PING's answer): it is dead, replace it.
        public var stallTimeout: Double = 5
        /// Streams kept open at once (fewer if the server says so).
        public var maximumStreams = 1000
        /// Called on the client's thread when a silent connection was replaced,
        /// with the number of requests that were waiting on it.
        public var onConnectionReplaced: (@Sendable (Int) -> Void)?
        /// The loop thread's name (at most 15 bytes on Linux).
        public var threadName = "pb-apns"
        /// Looks a host name up (blocking; run beside the loop). Tests replace it.
        var resolve: AddressLookup.Resolve = SocketAddress.resolve
        public init(caFile: String? = nil) { self.caFile = caFile }
    }

    struct Shared {
        var queue: [HTTP2Exchange] = []
        var stopping = false
        var stopDeadline = EpochTime(seconds: 0)
        /// The loop is (about to be) blocked in poll: only then does a
        /// submitter need the wake-up write.
        var sleeping = false
        /// The loop has ended; `waitingForStop` were told.
        var stopped = false
        var waitingForStop: [CheckedContinuation<Void, Never>] = []
    }

    public let origin: HTTPOrigin
    let options: Options
    let tls: TLSContext
    let shared = Mutex(Shared())
    /// Wakes the loop from `poll`.
    let wakeSignal: WakeSignal
    /// The host's addresses, looked up beside the loop.
    let lookup: AddressLookup
    private var thread: NamedThread?
    // The loop thread's own (HTTP2Client+Loop.swift).
    var connection: HTTP2Connection?
    /// Requests waiting for a stream, in order; those refused unprocessed first.
    var waiting = Deque<HTTP2Exchange>()

    /// Throws when OpenSSL cannot be set up (the CA file) or the thread cannot start.
    public init(origin: HTTPOrigin, options: Options = .init()) throws(HTTP2TransportError) {
        self.origin = origin
        self.options = options
        do {
            tls = try TLSContext(clientTrusting: options.caFile, alpn: "h2")
        } catch {
            throw HTTP2TransportError(.setUp, error.description)
        }
        wakeSignal = try WakeSignal()
        lookup = AddressLookup(host: origin.host, port: origin.port, wake: wakeSignal, resolve: options.resolve)
        do {
            // The thread holds the client until its loop ends (`shutdown`).
            thread = try NamedThread(options.threadName) { [self] in run() }
        } catch {
            throw HTTP2TransportError(.setUp, "\(error)")
        }
    }

    /// A client for `configuration`'s endpoint, trusting its CA file if it names one.
    public convenience init(configuration: APNsConfiguration, options: Options = .init()) throws(HTTP2TransportError) {
        guard let origin = configuration.origin else {
            throw HTTP2TransportError(.setUp, "APNs endpoint \(configuration.endpoint) is not https://host[:port]")
        }
        var options = options
        options.caFile = options.caFile ?? configuration.caFile
        try self.init(origin: origin, options: options)
    }

    /// Sends one request; returns the server's answer or throws `HTTP2TransportError`.
    public func send(_ request: HTTP2Request) async throws(HTTP2TransportError) -> HTTP2Response {
        let result = await withCheckedContinuation { continuation in
            send(request) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Sends one request and returns at once; `completion` gets its answer,
    /// or why none came, once, on the client's thread. The client keeps
    /// up to `maximumStreams` in flight and sends the rest, in order, as
    /// streams end. After shutdown it fails (`shutdown`) before this returns.
    public func send(_ request: HTTP2Request, then completion: @escaping HTTP2Completion) {
        let exchange = HTTP2Exchange(request: request, completion: completion)
        if !enqueue(exchange) { exchange.finish(.failure(.shutdown)) }
    }

    /// Queues a request for the loop, waking it if it sleeps; false once stopping.
    private func enqueue(_ exchange: HTTP2Exchange) -> Bool {
        let (accepted, wake) = shared.withLock { state -> (Bool, Bool) in
            guard !state.stopping else { return (false, false) }
            state.queue.append(exchange)
            let wake = state.sleeping
            state.sleeping = false
            return (true, wake)
        }
        if wake { wakeSignal.signal() }
        return accepted
    }

    /// Stops taking requests, lets those in flight finish for up to `grace`
    /// seconds, fails the rest, and ends the thread. The first call returns
    /// when the thread has ended, later ones at once. Blocks the calling
    /// thread: from async code, `await` the other `shutdown(grace:)`.
    public func shutdown(grace: Double = 5) {
        if beginShutdown(grace: grace) { thread?.join() }
    }

    /// `shutdown(grace:)` for async code: suspends, without blocking a
    /// thread, until the loop has drained and ended.
    public func shutdown(grace: Double = 5) async {
        beginShutdown(grace: grace)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let stopped = shared.withLock { state -> Bool in
                if !state.stopped { state.waitingForStop.append(continuation) }
                return state.stopped
            }
            if stopped { continuation.resume() }
        }
    }

    /// Marks the client stopping and wakes the loop; true the first time.
    @discardableResult
    private func beginShutdown(grace: Double) -> Bool {
        let first = shared.withLock { state -> Bool in
            let was = state.stopping
            state.stopping = true
            state.stopDeadline = MonotonicClock().now() + grace
            return !was
        }
        wakeSignal.signal()
        return first
    }
}
