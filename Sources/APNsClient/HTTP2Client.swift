import NamedThreads
import PrintBridgeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

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
/// it sleeps; answers come back through continuations. The one blocking call
/// a connection needs, the host name's lookup, runs beside that thread
/// (`AddressLookup`), never on it.
public final class HTTP2Client: @unchecked Sendable {
    // @unchecked Sendable: `connection`, `retry` and `pending` are touched
    // only by the loop thread; `shared` is behind a Mutex; the rest is
    // immutable (`wakeSignal` and `lookup` are Sendable).
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
        /// Looks a host name up (blocking; run beside the loop). Tests replace it.
        var resolve: AddressLookup.Resolve = SocketAddress.resolve
        public init(caFile: String? = nil) { self.caFile = caFile }
    }

    private struct Shared {
        var queue: [HTTP2Submission] = []
        var stopping = false
        var stopDeadline = EpochTime(seconds: 0)
        /// The loop is (about to be) blocked in poll: only then does a
        /// submitter need the wake-up write.
        var sleeping = false
    }

    /// Times a request refused unprocessed is sent again before it fails.
    static let maximumRefusals = 3

    public let origin: HTTPOrigin
    private let options: Options
    private let tls: TLSClientContext
    private let shared = Mutex(Shared())
    /// Wakes the loop from `poll`.
    private let wakeSignal: WakeSignal
    /// The host's addresses, looked up beside the loop.
    private let lookup: AddressLookup
    private var thread: NamedThread?
    private var connection: HTTP2Connection?
    /// Requests refused unprocessed, sent before `pending`.
    private var retry: [HTTP2Submission] = []
    private var pending: [HTTP2Submission] = []
    private var pendingHead = 0

    /// Throws when OpenSSL cannot be set up (the CA file) or the thread cannot start.
    public init(origin: HTTPOrigin, options: Options = .init()) throws(HTTP2TransportError) {
        self.origin = origin
        self.options = options
        tls = try TLSClientContext(caFile: options.caFile)
        wakeSignal = try WakeSignal()
        lookup = AddressLookup(host: origin.host, port: origin.port, wake: wakeSignal, resolve: options.resolve)
        do {
            // The thread holds the client until its loop ends (`shutdown`).
            thread = try NamedThread("pb-apns") { [self] in run() }
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
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        try await withCheckedThrowingContinuation { continuation in
            let (accepted, wake) = shared.withLock { state -> (Bool, Bool) in
                guard !state.stopping else { return (false, false) }
                state.queue.append(HTTP2Submission(request: request, continuation: continuation))
                let wake = state.sleeping
                state.sleeping = false
                return (true, wake)
            }
            if !accepted {
                continuation.resume(throwing: HTTP2TransportError.shutdown)
            } else if wake {
                wakeSignal.signal()
            }
        }
    }

    /// Stops taking requests, lets those in flight finish for up to `grace`
    /// seconds, fails the rest, and ends the thread.
    public func shutdown(grace: Double = 5) {
        let already = shared.withLock { state -> Bool in
            let was = state.stopping
            state.stopping = true
            state.stopDeadline = MonotonicClock().now() + grace
            return was
        }
        wakeSignal.signal()
        if !already { thread?.join() }
    }

    // MARK: - The loop thread

    private var waiting: Int { retry.count + pending.count - pendingHead }

    private func nextSubmission() -> HTTP2Submission? {
        if !retry.isEmpty { return retry.removeFirst() }
        guard pendingHead < pending.count else { return nil }
        let next = pending[pendingHead]
        pendingHead += 1
        if pendingHead == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingHead = 0
        }
        return next
    }

    private func run() {
        let clock = MonotonicClock()
        var descriptors = [pollfd(fd: wakeSignal.descriptor, events: Int16(POLLIN), revents: 0), pollfd()]
        while true {
            let (submissions, stopping, stopDeadline) = shared.withLock { state in
                let queue = state.queue
                state.queue.removeAll(keepingCapacity: true)
                return (queue, state.stopping, state.stopDeadline)
            }
            pending += submissions
            var now = clock.now()
            let inFlight = connection?.activeStreams ?? 0
            if stopping && (now >= stopDeadline || (waiting == 0 && inFlight == 0)) { break }
            if connection == nil, waiting > 0 {
                connection = HTTP2Connection(origin: origin, tls: tls, lookup: lookup, limits: limits, now: now)
            }
            if let connection {
                connection.continueLookup()
                while connection.canOpenStream, let next = nextSubmission() { connection.submit(next, now: now) }
                connection.flush()
            }
            var wakeAt = connection?.checkTimers(now: now)
            collect()
            if stopping { wakeAt = min(wakeAt ?? stopDeadline, stopDeadline) }
            // Sleep only if nothing was queued meanwhile; a submitter that sees
            // `sleeping` wakes us, one that does not is picked up right away.
            let idle = shared.withLock { state -> Bool in
                state.sleeping = state.queue.isEmpty && !state.stopping
                return state.sleeping
            }
            var timeout: Int32 = -1
            if !idle || (connection == nil && waiting > 0) {
                timeout = 0
            } else if let wakeAt {
                timeout = Int32(max(0, min(3_600_000, ((wakeAt - now) * 1000).rounded(.up))))
            }
            let socket = connection?.pollEvents
            descriptors[1] = pollfd(fd: socket?.descriptor ?? -1, events: socket?.events ?? 0, revents: 0)
            descriptors[0].revents = 0
            _ = poll(&descriptors, socket == nil ? 1 : 2, timeout)
            shared.withLock { $0.sleeping = false }
            if descriptors[0].revents != 0 { wakeSignal.clear() }
            now = clock.now()
            if let connection, socket != nil, descriptors[1].revents != 0 {
                connection.handle(descriptors[1].revents, now: now)
            }
            collect()
        }
        let late = shared.withLock { state in
            let queue = state.queue
            state.queue.removeAll()
            state.stopping = true
            return queue
        }
        connection?.abandon(.shutdown)
        connection = nil
        var left = late + retry
        left += pending[pendingHead...]
        retry.removeAll()
        pending.removeAll()
        pendingHead = 0
        for submission in left { submission.continuation.resume(throwing: HTTP2TransportError.shutdown) }
    }

    private var limits: HTTP2Connection.Limits {
        .init(
            liveness: .init(
                connectTimeout: options.connectTimeout, requestTimeout: options.requestTimeout,
                stallTimeout: options.stallTimeout),
            maximumStreams: options.maximumStreams)
    }

    /// Takes back refused requests (to send again, a bounded number of
    /// times) and a closed connection. A connection that never opened fails
    /// every waiting request with its error: the caller's retry policy paces
    /// the next attempt.
    private func collect() {
        guard let connection else { return }
        for var submission in connection.takeRefused() {
            submission.refusals += 1
            if submission.refusals > Self.maximumRefusals {
                submission.continuation.resume(throwing: HTTP2TransportError(
                    .stream, "\(origin.authority) refused the request \(Self.maximumRefusals + 1) times"))
            } else {
                retry.append(submission)
            }
        }
        guard connection.state == .closed else { return }
        self.connection = nil
        if connection.stalledStreams > 0 { options.onConnectionReplaced?(connection.stalledStreams) }
        if !connection.wasOpen {
            let error = connection.closeError ?? HTTP2TransportError(.connect, "no connection to \(origin.authority)")
            while let submission = nextSubmission() { submission.continuation.resume(throwing: error) }
        }
    }
}
