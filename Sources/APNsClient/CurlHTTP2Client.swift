import CCurl
import NamedThreads
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/2 POST to make.
public struct HTTP2Request: Sendable {
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(url: String, headers: [(String, String)], body: [UInt8]) {
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// What the server answered.
public struct HTTP2Response: Sendable, Hashable {
    public var status: Int
    /// Lower-cased header names.
    public var headers: [String: String]
    public var body: [UInt8]
    /// Whether this request opened a new connection (0 when it was multiplexed on one).
    public var newConnections: Int
}

/// A request that never got an HTTP answer.
public struct HTTP2TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Int
    public var message: String
    /// The client was shut down before the request finished.
    public var isShutdown: Bool { code == -1 }
    public var description: String { "transport error \(code): \(message)" }

    static let shutdown = HTTP2TransportError(code: -1, message: "client shut down")
}

/// HTTP/2 client on libcurl's multi interface: requests multiplexed as
/// streams on one long-lived TLS connection (ALPN h2, TLS 1.2+), reopened by
/// libcurl when the server closes it.
///
/// A connection that goes silent without a reset (a NAT or middlebox dropped
/// it) is replaced: when requests wait and nothing at all has come back on
/// it for `stallTimeout` seconds, its socket is shut down, libcurl fails (or
/// itself retries) those requests, and the next ones open a new connection.
/// An idle connection is probed by the kernel's TCP keepalive (after 30 s
/// idle, every 10 s). libcurl's own HTTP/2 PING (`curl_easy_upkeep`) is not
/// used: in libcurl 7.88 (Debian 12) it reaches only connections of the easy
/// interface, not those of a multi handle (lib/easy.c at curl-7_88_1: it
/// upkeeps `data->multi_easy`'s connection cache, else does nothing).
///
/// All libcurl state lives on one dedicated thread. Callers only append to a
/// locked queue and wake that thread with `curl_multi_wakeup`; answers come
/// back through continuations.
public final class CurlHTTP2Client: @unchecked Sendable {
    // @unchecked Sendable: `multi` and every transfer are touched only by the
    // loop thread; `shared` (the submission queue and flags) is behind a Mutex;
    // `options` is immutable.
    public struct Options: Sendable {
        /// A CA bundle to trust instead of the system's (a local test server).
        public var caFile: String?
        public var connectTimeout: Double = 10
        public var requestTimeout: Double = 30
        /// Requests waiting this long with no answer of any kind on the
        /// connection: it is dead, replace it.
        public var stallTimeout: Double = 5
        /// Called on the client's thread when a silent connection was replaced,
        /// with the number of requests that were waiting on it.
        public var onConnectionReplaced: (@Sendable (Int) -> Void)?
        public init(caFile: String? = nil) { self.caFile = caFile }
    }

    private struct Submission {
        var request: HTTP2Request
        var continuation: CheckedContinuation<HTTP2Response, any Error>
    }

    private struct Shared {
        var queue: [Submission] = []
        var stopping = false
        var stopDeadline: Double = 0
        /// The loop is (about to be) blocked in curl_multi_poll: only then does a
        /// submitter need the wake-up system call.
        var sleeping = false
    }

    private let options: Options
    private let multi: UnsafeMutableRawPointer
    private let shared = Mutex(Shared())
    private var thread: NamedThread?
    private var transfers: [UnsafeMutableRawPointer: Transfer] = [:]
    /// Finished easy handles kept for the next requests (reset, not freed).
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// When the connection last gave an answer (or requests began to wait after a quiet spell).
    private var lastAnswer = 0.0
    /// The sockets libcurl has open (its connections), told by its socket
    /// callbacks. An object of its own: libcurl closes connections (and calls
    /// back) while `deinit` cleans up the multi handle.
    private final class OpenSockets {
        var sockets: Set<curl_socket_t> = []
    }

    private let openSockets = OpenSockets()

    /// libcurl's global set-up, once per process: `curl_global_init` is not
    /// thread-safe and must not run again while another client is in use.
    private static let globalInitialisation: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Throws when libcurl cannot be set up or its thread cannot start.
    public init(options: Options = .init()) throws(HTTP2TransportError) {
        self.options = options
        let initialised = Self.globalInitialisation
        guard initialised == CURLE_OK else {
            throw HTTP2TransportError(code: Int(initialised.rawValue), message: "libcurl: \(String(cString: curl_easy_strerror(initialised)))")
        }
        multi = curl_multi_init()
        _ = pb_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        // One connection per host: further requests wait for a stream on it.
        _ = pb_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1)
        _ = pb_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 1000)
        do {
            // The thread holds the client until its loop ends (`shutdown`).
            thread = try NamedThread("pb-apns") { [self] in run() }
        } catch {
            throw HTTP2TransportError(code: -3, message: "\(error)")
        }
    }

    deinit {
        for handle in idleHandles { curl_easy_cleanup(handle) }
        curl_multi_cleanup(multi)
    }

    /// Sends one request; returns the server's answer or throws `HTTP2TransportError`.
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        try await withCheckedThrowingContinuation { continuation in
            let (accepted, wake) = shared.withLock { state -> (Bool, Bool) in
                guard !state.stopping else { return (false, false) }
                state.queue.append(Submission(request: request, continuation: continuation))
                let wake = state.sleeping
                state.sleeping = false
                return (true, wake)
            }
            if !accepted {
                continuation.resume(throwing: HTTP2TransportError.shutdown)
            } else if wake {
                curl_multi_wakeup(multi)
            }
        }
    }

    /// Stops taking requests, lets those in flight finish for up to `grace`
    /// seconds, fails the rest, and ends the thread.
    public func shutdown(grace: Double = 5) {
        let already = shared.withLock { state -> Bool in
            let was = state.stopping
            state.stopping = true
            state.stopDeadline = monotonicNow() + grace
            return was
        }
        curl_multi_wakeup(multi)
        if !already { thread?.join() }
    }

    // MARK: - The loop thread

    private func run() {
        while true {
            let (submissions, stopping, deadline) = shared.withLock { state in
                let queue = state.queue
                state.queue.removeAll()
                return (queue, state.stopping, state.stopDeadline)
            }
            if transfers.isEmpty && !submissions.isEmpty { lastAnswer = monotonicNow() }
            for submission in submissions { start(submission) }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            collectFinished()
            replaceIfSilent()
            if stopping && (transfers.isEmpty || monotonicNow() >= deadline) { break }
            // Sleep only if nothing was queued meanwhile; a submitter that sees
            // `sleeping` wakes us, one that does not is picked up right away.
            let idle = shared.withLock { state -> Bool in
                state.sleeping = state.queue.isEmpty && !state.stopping
                return state.sleeping
            }
            curl_multi_poll(multi, nil, 0, idle ? 1000 : 0, nil)
            shared.withLock { $0.sleeping = false }
        }
        for (handle, transfer) in transfers {
            curl_multi_remove_handle(multi, handle)
            transfer.finish(.failure(HTTP2TransportError.shutdown))
            curl_easy_cleanup(handle)
        }
        transfers.removeAll()
        // Requests that raced the shutdown.
        let late = shared.withLock { state in
            let queue = state.queue
            state.queue.removeAll()
            return queue
        }
        for submission in late { submission.continuation.resume(throwing: HTTP2TransportError.shutdown) }
    }

    private static let suppressedDefaults = ["accept", "content-type"]

    private func start(_ submission: Submission) {
        guard let handle = idleHandles.popLast() ?? newHandle() else {
            submission.continuation.resume(throwing: HTTP2TransportError(code: -2, message: "curl_easy_init failed"))
            return
        }
        let transfer = Transfer(continuation: submission.continuation, started: monotonicNow())
        let request = submission.request
        for (name, value) in request.headers {
            transfer.headerList = curl_slist_append(transfer.headerList, "\(name): \(value)")
        }
        // libcurl's own defaults ("accept: */*", and a form content-type for a
        // POST body, wrong for JSON) are left out: the caller names every
        // header the request carries. "Name:" with no value removes one.
        for name in Self.suppressedDefaults where !request.headers.contains(where: { $0.0.lowercased() == name }) {
            transfer.headerList = curl_slist_append(transfer.headerList, name + ":")
        }
        // Per request: the URL, headers, body and where the answer goes. The
        // rest was set once when the handle was made (`newHandle`).
        let userData = Unmanaged.passUnretained(transfer).toOpaque()
        _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_URL, request.url)
        _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_HTTPHEADER, transfer.headerList)
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_POSTFIELDSIZE, request.body.count)
        request.body.withUnsafeBytes { _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
        _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, userData)
        _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_HEADERDATA, userData)
        _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        transfers[handle] = transfer
        curl_multi_add_handle(multi, handle)
    }

    /// An easy handle with the options every request shares.
    private func newHandle() -> UnsafeMutableRawPointer? {
        guard let handle = curl_easy_init() else { return nil }
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_PIPEWAIT, 1)
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_TCP_KEEPIDLE, 30)
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_TCP_KEEPINTVL, 10)
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(options.connectTimeout * 1000))
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(options.requestTimeout * 1000))
        if let caFile = options.caFile { _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_CAINFO, caFile) }
        // Knowing the sockets lets a silent connection be shut down (`replaceIfSilent`).
        let registry = Unmanaged.passUnretained(openSockets).toOpaque()
        _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_SOCKOPTDATA, registry)
        _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_CLOSESOCKETDATA, registry)
        _ = pb_curl_easy_setopt_sockopt(handle) { registry, socket, _ in
            Unmanaged<OpenSockets>.fromOpaque(registry!).takeUnretainedValue().sockets.insert(socket)
            return CURL_SOCKOPT_OK
        }
        _ = pb_curl_easy_setopt_closesocket(handle) { registry, socket in
            Unmanaged<OpenSockets>.fromOpaque(registry!).takeUnretainedValue().sockets.remove(socket)
            return Glibc.close(socket)
        }
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_POST, 1)
        _ = pb_curl_easy_setopt_func(handle, CURLOPT_WRITEFUNCTION, { data, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let length = size * count
            if let data { transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
            return length
        })
        _ = pb_curl_easy_setopt_func(handle, CURLOPT_HEADERFUNCTION, { data, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let length = size * count
            if let data { transfer.addHeaderLine(UnsafeRawBufferPointer(start: data, count: length)) }
            return length
        })
        return handle
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let transfer = transfers.removeValue(forKey: handle)
            else { continue }
            let code = message.pointee.data.result
            var status = 0
            var connects = 0
            _ = pb_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            _ = pb_curl_easy_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
            curl_multi_remove_handle(multi, handle)
            lastAnswer = monotonicNow()
            if code == CURLE_OK {
                transfer.finish(.success(HTTP2Response(
                    status: status, headers: transfer.headers, body: transfer.body, newConnections: connects)))
            } else {
                let detail = transfer.errorText
                let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
                transfer.finish(.failure(HTTP2TransportError(code: Int(code.rawValue), message: message)))
            }
            recycle(handle)
        }
    }

    /// Requests have waited `stallTimeout` with nothing back: shut down the
    /// sockets they wait on, so libcurl drops that connection.
    private func replaceIfSilent() {
        guard !transfers.isEmpty else { return }
        let now = monotonicNow()
        guard now - lastAnswer > options.stallTimeout,
            let oldest = transfers.values.map(\.started).min(), now - oldest > options.stallTimeout
        else { return }
        // Only requests already sent on a connection count: one still being
        // connected is the connect timeout's business. One host, one
        // connection: its sockets are all libcurl has open.
        let sent = transfers.keys.contains { handle in
            var sent: curl_off_t = 0
            return pb_curl_easy_getinfo_off(handle, CURLINFO_PRETRANSFER_TIME_T, &sent) == CURLE_OK && sent > 0
        }
        lastAnswer = now
        guard sent, !openSockets.sockets.isEmpty else { return }
        for socket in openSockets.sockets { _ = Glibc.shutdown(socket, Int32(SHUT_RDWR)) }
        options.onConnectionReplaced?(transfers.count)
    }

    /// Keeps a finished handle for reuse (its shared options kept), up to a bound.
    private func recycle(_ handle: UnsafeMutableRawPointer) {
        guard idleHandles.count < 256 else {
            curl_easy_cleanup(handle)
            return
        }
        // The shared options stay; `start` sets the per-request ones again. No
        // pointer into the finished Transfer (freed with it) stays behind.
        _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_HTTPHEADER, nil)
        _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_ERRORBUFFER, nil)
        _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, nil)
        _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_HEADERDATA, nil)
        idleHandles.append(handle)
    }
}

func monotonicNow() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
