import CNGHTTP2
import PrintBridgeCore

/// The HTTP/2 client session of one connection: owns the nghttp2 session
/// (freed by `release` or deinit), the requests in flight as streams by
/// id, and the rules for a request the server never processed.
///
/// Bytes go in and out as memory (`receive`, `send(into:)`); the connection
/// moves them through TLS. Streams end the way HTTP/2 ends them: the
/// server's END_STREAM closes a stream on both sides, nothing more is sent
/// for it. (libcurl 7.88 sent RST_STREAM after every finished stream, which
/// servers with rapid-reset protection answer with GOAWAY.)
///
/// A request the server never processed goes to `refused`, to be sent again
/// on the next connection: one whose HEADERS were never sent, one the server
/// refused (REFUSED_STREAM), or one above a GOAWAY's last stream id (RFC 9113
/// §6.8). One that was sent and then lost its connection fails: whether it
/// arrived is unknown, and the caller decides.
final class HTTP2Session {
    /// Requests in flight by stream id (the callbacks fill in their answers).
    var streams: [Int32: HTTP2Stream] = [:]
    /// Requests to send again on a new connection (`takeRefused`).
    var refused: [HTTP2Exchange] = []
    /// The last stream a GOAWAY said the server will process.
    var goawayLastStream: Int32?
    /// A PING (or its answer) arrived since the connection last looked.
    var pingReceived = false
    private var session: OpaquePointer?
    private let authority: String
    private let maximumStreams: Int

    /// Starts the session and queues this side's SETTINGS.
    init(authority: String, maximumStreams: Int) throws(HTTP2TransportError) {
        self.authority = authority
        self.maximumStreams = maximumStreams
        // The callbacks reach this object through nghttp2's user data,
        // unretained: it owns the session and frees it before it goes
        // (`release`, deinit), so no callback comes after.
        guard let session = Self.makeSession(user: Unmanaged.passUnretained(self).toOpaque()) else {
            throw HTTP2TransportError(.setUp, "nghttp2 could not start a session")
        }
        self.session = session
        // No server push; a large window for answers (they are small anyway).
        let settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count)
    }

    deinit { release() }

    /// Streams in flight (sent or about to be).
    var openStreams: Int { streams.count }

    /// Whether a new request can be submitted now: no GOAWAY, and fewer
    /// streams than this side's limit and the server's.
    var canOpenStream: Bool {
        guard goawayLastStream == nil, let session else { return false }
        let serverLimit = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return streams.count < min(maximumStreams, max(1, serverLimit))
    }

    /// After a GOAWAY, the session is done once its last stream is.
    var isFinished: Bool { goawayLastStream != nil && streams.isEmpty }

    /// The requests in flight, as liveness sees them.
    var requests: some Sequence<HTTP2Liveness.Request> {
        streams.lazy.map { HTTP2Liveness.Request(id: $0.key, started: $0.value.started, sent: $0.value.sent) }
    }

    /// Hands over the requests to send again, emptying the list.
    func takeRefused() -> [HTTP2Exchange] {
        defer { refused.removeAll() }
        return refused
    }

    /// Queues one request (`canOpenStream` must be true).
    func submit(_ exchange: HTTP2Exchange, now: EpochTime) {
        guard let session else {
            refused.append(exchange)
            return
        }
        let request = exchange.request
        var fields = HTTP2HeaderList()
        fields.append(":method", request.method)
        fields.append(":scheme", "https")
        fields.append(":authority", authority)
        fields.append(":path", request.path)
        for header in request.headers { fields.append(header.name, header.value, neverIndexed: header.neverIndexed) }
        let id: Int32
        if request.body.isEmpty, request.method != "POST" {
            // A GET or DELETE: the headers end the stream.
            id = fields.withList { list, count in nghttp2_submit_request(session, nil, list, count, nil, nil) }
        } else {
            fields.append("content-length", String(request.body.count))
            var provider = Self.bodyProvider
            id = fields.withList { list, count in nghttp2_submit_request(session, nil, list, count, &provider, nil) }
        }
        guard id > 0 else {
            exchange.finish(.failure(HTTP2TransportError(.stream, "nghttp2: \(String(cString: nghttp2_strerror(id)))")))
            return
        }
        streams[id] = HTTP2Stream(exchange, started: now)
    }

    /// Takes bytes read from the server; throws when they break the protocol.
    func receive(_ bytes: ArraySlice<UInt8>) throws(HTTP2TransportError) {
        guard let session else { return }
        let used = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        if used < 0 {
            throw HTTP2TransportError(.stream, "HTTP/2 protocol error from \(authority): \(String(cString: nghttp2_strerror(Int32(used))))")
        }
    }

    /// Appends what nghttp2 has to send to `outgoing`, until it holds `limit` bytes or nothing is left.
    func send(into outgoing: inout [UInt8], upTo limit: Int) throws(HTTP2TransportError) {
        guard let session else { return }
        while outgoing.count < limit {
            var chunk: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &chunk)
            if length < 0 { throw HTTP2TransportError(.stream, "nghttp2: \(String(cString: nghttp2_strerror(Int32(length))))") }
            guard length > 0, let chunk else { return }
            outgoing.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
        }
    }

    /// Queues a PING: a live server answers at once.
    func ping() {
        guard let session else { return }
        nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// Gives up on one request: RST_STREAM (CANCEL) to the server, `error`
    /// to the caller. What nghttp2 still says about the stream finds no
    /// stream and is ignored.
    func cancel(_ id: Int32, failing error: HTTP2TransportError) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        if let session { nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue) }
        stream.exchange.finish(.failure(error))
    }

    /// The connection is gone: requests never processed go to `refused`,
    /// the others fail with `failure`. Frees the nghttp2 session.
    func close(failing failure: HTTP2TransportError) {
        let open = streams.sorted { $0.key < $1.key }
        streams.removeAll()
        release()
        for (id, stream) in open {
            if !stream.sent || isAboveGoaway(id) {
                refused.append(stream.exchange)
            } else {
                stream.exchange.finish(.failure(failure))
            }
        }
    }

    /// The client is stopping: every request still here fails with `error`,
    /// and a GOAWAY is queued (the connection sends it, then `close`s).
    func abandon(failing error: HTTP2TransportError) {
        let open = streams.values.map(\.exchange) + refused
        streams.removeAll()
        refused.removeAll()
        for exchange in open { exchange.finish(.failure(error)) }
        if let session { nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue) }
    }

    func isAboveGoaway(_ id: Int32) -> Bool { goawayLastStream.map { id > $0 } ?? false }

    /// Frees the nghttp2 session (idempotent); what it refused stays to be taken.
    func release() {
        if let session { nghttp2_session_del(session) }
        session = nil
    }
}

/// A request's header fields as `nghttp2_submit_request` takes them: the
/// names and values side by side in one byte array, and the list of
/// `nghttp2_nv` pointing into it made only for the length of the call.
/// nghttp2 copies (and lower-cases) every name and value before the call
/// returns: no flag here asks it not to.
struct HTTP2HeaderList {
    private var bytes: [UInt8] = []
    private var fields: [(name: Range<Int>, value: Range<Int>, flags: UInt8)] = []

    init() {
        bytes.reserveCapacity(512)
        fields.reserveCapacity(16)
    }

    mutating func append(_ name: String, _ value: String, neverIndexed: Bool = false) {
        let nameStart = bytes.count
        bytes.append(contentsOf: name.utf8)
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        let flags = neverIndexed ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE
        fields.append((nameStart..<valueStart, valueStart..<bytes.count, UInt8(flags.rawValue)))
    }

    /// Calls `body` with the list and its count.
    mutating func withList<Result>(_ body: (UnsafeMutablePointer<nghttp2_nv>, Int) -> Result) -> Result {
        let fields = fields
        return bytes.withUnsafeMutableBufferPointer { bytes in
            var list = fields.map { field in
                nghttp2_nv(
                    name: bytes.baseAddress! + field.name.lowerBound, value: bytes.baseAddress! + field.value.lowerBound,
                    namelen: field.name.count, valuelen: field.value.count, flags: field.flags)
            }
            return list.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }
}
