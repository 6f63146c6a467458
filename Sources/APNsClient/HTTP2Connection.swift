import CNGHTTP2
import COpenSSL
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// A request waiting for an answer, as the client's loop holds it.
struct HTTP2Submission {
    var request: HTTP2Request
    var continuation: CheckedContinuation<HTTP2Response, any Error>
    /// Times a server refused it unprocessed (it is sent again, a bounded number of times).
    var refusals = 0
}

/// One HTTP/2 connection over TLS: a non-blocking socket, an OpenSSL session
/// and an nghttp2 client session, driven by `HTTP2Client`'s loop thread
/// (`pollEvents`, `handle`, `checkTimers`). Never touched from another thread.
/// Whether it is alive (connect timeout, PING, stall, request timeouts) is
/// `HTTP2Liveness`'s to decide; this class carries the decisions out.
///
/// Streams end the way HTTP/2 ends them: the server's END_STREAM closes a
/// stream on both sides, nothing more is sent for it. (libcurl 7.88 sent
/// RST_STREAM after every finished stream, which servers with rapid-reset
/// protection answer with GOAWAY.)
///
/// A request the server never processed comes back in `refused`, to be sent
/// again on the next connection: one whose HEADERS were never sent, one the
/// server refused (REFUSED_STREAM), or one above a GOAWAY's last stream id
/// (RFC 9113 §6.8). One that was sent and then lost its connection fails with
/// `connectionLost`: whether it arrived is unknown, and the caller decides.
final class HTTP2Connection {
    enum State { case connecting, handshaking, open, closed }

    private final class Stream {
        let submission: HTTP2Submission
        let started: EpochTime
        var sent = false
        var status = 0
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var bodyOffset = 0

        init(_ submission: HTTP2Submission, started: EpochTime) {
            self.submission = submission
            self.started = started
        }
    }

    struct Limits {
        var liveness: HTTP2Liveness.Limits
        /// Streams this side keeps open at once (fewer if the server says so).
        var maximumStreams: Int
    }

    private(set) var state = State.connecting
    /// Why it closed (nil while open, or when it closed cleanly after a GOAWAY).
    private(set) var closeError: HTTP2TransportError?
    /// Requests to send again on a new connection (taken by the client).
    var refused: [HTTP2Submission] = []
    /// Streams were sent and nothing came back for the stall timeout.
    private(set) var stalledStreams = 0
    /// Whether the TLS handshake completed and HTTP/2 started.
    private(set) var wasOpen = false

    private let origin: HTTPOrigin
    private let tls: TLSClientContext
    private let limits: Limits
    private var socket: Int32 = -1
    private var ssl: OpaquePointer?
    private var session: OpaquePointer?
    private var addresses: [(storage: sockaddr_storage, length: socklen_t)] = []
    private var nextAddress = 0
    private var lastConnectError = ""
    private var liveness: HTTP2Liveness
    private var handshakeWantsWrite = false
    private var streams: [Int32: Stream] = [:]
    private var outgoing: [UInt8] = []
    private var outgoingSent = 0
    private var writeBlocked = false
    private var receiving = [UInt8](repeating: 0, count: 65536)
    private var goawayLastStream: Int32?

    init(origin: HTTPOrigin, tls: TLSClientContext, limits: Limits, now: EpochTime) {
        self.origin = origin
        self.tls = tls
        self.limits = limits
        liveness = HTTP2Liveness(limits: limits.liveness, startingAt: now)
        resolve()
        connectNextAddress()
    }

    deinit { release() }

    /// Streams in flight (sent or about to be).
    var activeStreams: Int { streams.count }

    /// Whether a new request can be submitted now.
    var canOpenStream: Bool {
        guard state == .open, goawayLastStream == nil, let session else { return false }
        let serverLimit = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return streams.count < min(limits.maximumStreams, max(1, serverLimit))
    }

    /// The socket and the events to wait for, or nil once closed.
    var pollEvents: (descriptor: Int32, events: Int16)? {
        switch state {
        case .connecting: return (socket, Int16(POLLOUT))
        case .handshaking: return (socket, Int16(handshakeWantsWrite ? POLLOUT : POLLIN))
        case .open: return (socket, Int16(POLLIN) | (writeBlocked ? Int16(POLLOUT) : 0))
        case .closed: return nil
        }
    }

    // MARK: - Connecting

    private func resolve() {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(origin.host, String(origin.port), &hints, &list)
        guard result == 0 else {
            lastConnectError = "cannot resolve \(origin.host): \(String(cString: gai_strerror(result)))"
            return
        }
        defer { freeaddrinfo(list) }
        var cursor = list
        while let entry = cursor?.pointee {
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(start: entry.ai_addr, count: Int(entry.ai_addrlen)))
            }
            addresses.append((storage, entry.ai_addrlen))
            cursor = entry.ai_next
        }
    }

    /// Tries the addresses in turn; the connection closes when none is left.
    private func connectNextAddress() {
        while nextAddress < addresses.count {
            var (storage, length) = addresses[nextAddress]
            nextAddress += 1
            let descriptor = Glibc.socket(Int32(storage.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else {
                lastConnectError = "socket: \(String(cString: strerror(errno)))"
                continue
            }
            Self.setSocketOptions(descriptor)
            let result = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
            }
            if result == 0 || errno == EINPROGRESS {
                socket = descriptor
                state = .connecting
                if result == 0 { beginHandshake() }
                return
            }
            lastConnectError = "connect to \(origin.authority): \(String(cString: strerror(errno)))"
            Glibc.close(descriptor)
        }
        close(HTTP2TransportError(.connect, lastConnectError.isEmpty ? "no address for \(origin.host)" : lastConnectError))
    }

    /// No Nagle delay (requests are small and go out at once); the kernel
    /// probes an idle connection after 30 s, every 10 s.
    private static func setSocketOptions(_ descriptor: Int32) {
        var on: Int32 = 1
        var idle: Int32 = 30
        var interval: Int32 = 10
        let size = socklen_t(MemoryLayout<Int32>.size)
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, size)
        setsockopt(descriptor, SOL_SOCKET, SO_KEEPALIVE, &on, size)
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPIDLE, &idle, size)
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL, &interval, size)
    }

    private func beginHandshake() {
        guard let ssl = SSL_new(tls.context) else {
            close(HTTP2TransportError(.tls, "OpenSSL: \(OpenSSLError.text())"))
            return
        }
        self.ssl = ssl
        SSL_set_fd(ssl, socket)
        pb_ssl_set_moving_write_buffer(ssl)
        var address = in6_addr()
        let isAddress = inet_pton(AF_INET, origin.host, &address) == 1 || inet_pton(AF_INET6, origin.host, &address) == 1
        if isAddress {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), origin.host)
        } else {
            _ = pb_ssl_set_sni(ssl, origin.host)
            SSL_set1_host(ssl, origin.host)
        }
        SSL_set_connect_state(ssl)
        state = .handshaking
        continueHandshake()
    }

    private func continueHandshake() {
        guard let ssl else { return }
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            var protocolName: UnsafePointer<UInt8>?
            var length: UInt32 = 0
            SSL_get0_alpn_selected(ssl, &protocolName, &length)
            guard length == 2, let protocolName, protocolName[0] == 0x68, protocolName[1] == 0x32 else {
                close(HTTP2TransportError(.tls, "\(origin.authority) did not agree to HTTP/2 (ALPN h2)"))
                return
            }
            startSession()
            return
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: handshakeWantsWrite = false
        case SSL_ERROR_WANT_WRITE: handshakeWantsWrite = true
        default:
            let verify = SSL_get_verify_result(ssl)
            let detail = verify != X509_V_OK
                ? "certificate: \(String(cString: X509_verify_cert_error_string(verify)))"
                : OpenSSLError.text(orErrno: errno)
            close(HTTP2TransportError(.tls, "TLS handshake with \(origin.authority) failed: \(detail)"))
        }
    }

    // MARK: - The HTTP/2 session

    private func startSession() {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value else { return 0 }
            HTTP2Connection.from(user).header(
                stream: frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            if let data { HTTP2Connection.from(user).streams[streamID]?.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length)) }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            if let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
                HTTP2Connection.from(user).streams[frame.pointee.hd.stream_id]?.sent = true
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, _, user in
            // A request's HEADERS that could not go out (a GOAWAY came first): never sent.
            if let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
                HTTP2Connection.from(user).refuse(stream: frame.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame else { return 0 }
            let connection = HTTP2Connection.from(user)
            switch UInt32(frame.pointee.hd.type) {
            case NGHTTP2_GOAWAY.rawValue: connection.goawayLastStream = frame.pointee.goaway.last_stream_id
            case NGHTTP2_PING.rawValue: connection.liveness.pingAnswered()
            default: break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, user in
            HTTP2Connection.from(user).streamClosed(streamID, errorCode: errorCode)
            return 0
        }
        var session: OpaquePointer?
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_client_new(&session, callbacks, user) == 0, let session else {
            close(HTTP2TransportError(.setUp, "nghttp2 could not start a session"))
            return
        }
        self.session = session
        // No server push; a large window for answers (they are small anyway).
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        state = .open
        wasOpen = true
        liveness.opened()
        flush()
    }

    private static func from(_ user: UnsafeMutableRawPointer?) -> HTTP2Connection {
        Unmanaged<HTTP2Connection>.fromOpaque(user!).takeUnretainedValue()
    }

    private func header(stream id: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[id] else { return }
        if name.count == 7, name.elementsEqual(":status".utf8) {
            let status = Int(String(decoding: value, as: UTF8.self)) ?? 0
            // An informational answer (1xx) is followed by the real one.
            if status >= 200 { stream.status = status }
            return
        }
        stream.headers[String(decoding: name, as: UTF8.self)] = String(decoding: value, as: UTF8.self)
    }

    private func streamClosed(_ id: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        if errorCode == NGHTTP2_NO_ERROR.rawValue, stream.status > 0 {
            stream.submission.continuation.resume(returning: HTTP2Response(
                status: stream.status, headers: stream.headers, body: stream.body))
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue || !stream.sent
            || (goawayLastStream.map { id > $0 } ?? false)
        {
            refused.append(stream.submission)
        } else {
            let reason = errorCode == NGHTTP2_NO_ERROR.rawValue
                ? "the stream ended without an answer"
                : "the server reset the stream: \(String(cString: nghttp2_http2_strerror(errorCode)))"
            stream.submission.continuation.resume(throwing: HTTP2TransportError(.stream, reason))
        }
    }

    private func refuse(stream id: Int32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        refused.append(stream.submission)
    }

    /// Queues one request on the session (`canOpenStream` must be true).
    func submit(_ submission: HTTP2Submission, now: EpochTime) {
        guard let session else {
            refused.append(submission)
            return
        }
        let request = submission.request
        var fields: [(String, String)] = [
            (":method", "POST"), (":scheme", "https"), (":authority", origin.authority), (":path", request.path),
        ]
        fields += request.headers
        fields.append(("content-length", String(request.body.count)))
        // One buffer for every name and value; nghttp2 copies them.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fields.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count })
        for (name, value) in fields {
            bytes += name.utf8
            bytes += value.utf8
        }
        let stream = Stream(submission, started: now)
        let id = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var offset = 0
            var fieldList: [nghttp2_nv] = []
            fieldList.reserveCapacity(fields.count)
            for (name, value) in fields {
                let nameLength = name.utf8.count
                let valueLength = value.utf8.count
                fieldList.append(nghttp2_nv(
                    name: buffer.baseAddress! + offset, value: buffer.baseAddress! + offset + nameLength,
                    namelen: nameLength, valuelen: valueLength, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                offset += nameLength + valueLength
            }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil)) { _, streamID, buffer, length, flags, _, user in
                HTTP2Connection.from(user).bodyChunk(stream: streamID, into: buffer, capacity: length, flags: flags)
            }
            return nghttp2_submit_request(session, nil, fieldList, fieldList.count, &provider, nil)
        }
        guard id > 0 else {
            submission.continuation.resume(throwing: HTTP2TransportError(.stream, "nghttp2: \(String(cString: nghttp2_strerror(id)))"))
            return
        }
        streams[id] = stream
    }

    private func bodyChunk(
        stream id: Int32, into buffer: UnsafeMutablePointer<UInt8>?, capacity: Int, flags: UnsafeMutablePointer<UInt32>?
    ) -> Int {
        guard let stream = streams[id], let buffer else {
            flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let body = stream.submission.request.body
        let count = min(capacity, body.count - stream.bodyOffset)
        body.withUnsafeBufferPointer { source in
            if count > 0 { buffer.update(from: source.baseAddress! + stream.bodyOffset, count: count) }
        }
        stream.bodyOffset += count
        if stream.bodyOffset == body.count { flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    // MARK: - Reading and writing

    /// Acts on what `poll` reported for the socket.
    func handle(_ revents: Int16, now: EpochTime) {
        switch state {
        case .connecting:
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &size)
            if error == 0 {
                beginHandshake()
            } else {
                lastConnectError = "connect to \(origin.authority): \(String(cString: strerror(error)))"
                Glibc.close(socket)
                socket = -1
                connectNextAddress()
            }
        case .handshaking:
            continueHandshake()
        case .open:
            if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { read(now: now) }
            if state == .open { flush() }
        case .closed:
            break
        }
    }

    private func read(now: EpochTime) {
        guard let ssl, let session else { return }
        while state == .open {
            let count = receiving.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                liveness.received(at: now)
                let used = receiving.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, Int(count)) }
                if used < 0 {
                    close(HTTP2TransportError(.stream, "HTTP/2 protocol error from \(origin.authority): \(String(cString: nghttp2_strerror(Int32(used))))"))
                }
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return
            case SSL_ERROR_ZERO_RETURN:
                close(HTTP2TransportError(.connectionLost, "\(origin.authority) closed the connection"))
            default:
                close(HTTP2TransportError(.connectionLost, "connection to \(origin.authority) lost: \(OpenSSLError.text(orErrno: errno))"))
            }
        }
    }

    /// Writes what nghttp2 has to send, in large TLS writes, until the socket is full.
    func flush() {
        guard state == .open, let ssl, let session else { return }
        while true {
            if outgoingSent == outgoing.count {
                outgoing.removeAll(keepingCapacity: true)
                outgoingSent = 0
                while outgoing.count < 65536 {
                    var chunk: UnsafePointer<UInt8>?
                    let length = nghttp2_session_mem_send(session, &chunk)
                    if length < 0 {
                        close(HTTP2TransportError(.stream, "nghttp2: \(String(cString: nghttp2_strerror(Int32(length))))"))
                        return
                    }
                    guard length > 0, let chunk else { break }
                    outgoing.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
                }
                if outgoing.isEmpty {
                    writeBlocked = false
                    closeIfDone()
                    return
                }
            }
            let written = outgoing.withUnsafeBytes {
                SSL_write(ssl, $0.baseAddress! + outgoingSent, Int32($0.count - outgoingSent))
            }
            if written > 0 {
                outgoingSent += Int(written)
                continue
            }
            switch SSL_get_error(ssl, written) {
            case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ:
                writeBlocked = true
            default:
                close(HTTP2TransportError(.connectionLost, "connection to \(origin.authority) lost: \(OpenSSLError.text(orErrno: errno))"))
            }
            return
        }
    }

    /// After a GOAWAY, the connection ends once its last stream has.
    private func closeIfDone() {
        guard goawayLastStream != nil, streams.isEmpty else { return }
        close(nil)
    }

    // MARK: - Time

    /// Carries out what liveness decides now (the connect timeout, a PING,
    /// a stall, requests past their timeout). Returns when it next needs to
    /// run (nil: not until something happens).
    func checkTimers(now: EpochTime) -> EpochTime? {
        let decision: HTTP2Liveness.Decision
        switch state {
        case .closed: return nil
        case .connecting, .handshaking: decision = liveness.check(at: now, requests: EmptyCollection())
        case .open:
            decision = liveness.check(at: now, requests: streams.lazy.map {
                HTTP2Liveness.Request(id: $0.key, started: $0.value.started, sent: $0.value.sent)
            })
        }
        if let end = decision.end {
            switch end {
            case .connectTimedOut:
                close(HTTP2TransportError(
                    .connect, "no connection to \(origin.authority) within \(Int(limits.liveness.connectTimeout)) s"))
            case .stalled(let requests, let quiet):
                stalledStreams = requests
                close(HTTP2TransportError(.stalled, "nothing from \(origin.authority) for \(Int(quiet)) s with requests waiting"))
            }
            return nil
        }
        guard let session, decision.ping || !decision.timedOut.isEmpty else { return decision.next }
        if decision.ping { nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil) }
        for id in decision.timedOut {
            guard let stream = streams.removeValue(forKey: id) else { continue }
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
            stream.submission.continuation.resume(throwing: HTTP2TransportError(
                .timeout, "no answer from \(origin.authority) within \(Int(limits.liveness.requestTimeout)) s"))
        }
        flush()
        return decision.next
    }

    // MARK: - Closing

    /// Closes the connection: requests never processed go to `refused`, the
    /// others fail with `error` (or "closed" when there is none).
    func close(_ error: HTTP2TransportError?) {
        guard state != .closed else { return }
        state = .closed
        closeError = error
        let failure = error ?? HTTP2TransportError(.connectionLost, "\(origin.authority) closed the connection")
        for (id, stream) in streams.sorted(by: { $0.key < $1.key }) {
            if !stream.sent || (goawayLastStream.map { id > $0 } ?? false) {
                refused.append(stream.submission)
            } else {
                stream.submission.continuation.resume(throwing: failure)
            }
        }
        streams.removeAll()
        release()
    }

    /// Fails every request still open with `error` (the client is stopping).
    func abandon(_ error: HTTP2TransportError) {
        let open = streams.values.map(\.submission) + refused
        streams.removeAll()
        refused.removeAll()
        for submission in open { submission.continuation.resume(throwing: error) }
        if let session, state == .open {
            nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
            flush()
        }
        state = .closed
        release()
    }

    private func release() {
        if let session { nghttp2_session_del(session) }
        session = nil
        if let ssl { SSL_free(ssl) }
        ssl = nil
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
    }
}

extension OpenSSLError {
    /// OpenSSL's queued errors, or the system error when it has none (a reset socket).
    static func text(orErrno code: Int32) -> String {
        text(orElse: code == 0 ? "end of stream" : String(cString: strerror(code)))
    }
}
