import CNGHTTP2
import PrintBridgeCore

/// The HTTP/2 client session of one connection: owns the nghttp2 session
/// (freed by `close` or deinit), the requests in flight as streams, and the
/// rules for a request the server never processed.
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
    var refused: [HTTP2Submission] = []
    /// The last stream a GOAWAY said the server will process.
    var goawayLastStream: Int32?
    /// A PING (or its answer) arrived since the connection last looked.
    var pingReceived = false
    private var session: OpaquePointer?
    private let scratch: HeaderScratch
    private let authority: String
    private let maximumStreams: Int

    /// Starts the session and queues this side's SETTINGS.
    init(authority: String, maximumStreams: Int) throws(HTTP2TransportError) {
        self.authority = authority
        self.maximumStreams = maximumStreams
        scratch = HeaderScratch(authority: authority)
        // The callbacks reach this object through nghttp2's user data: it
        // owns the session, which is freed before it goes (`close`, deinit).
        guard let session = Self.makeSession(user: Unmanaged.passUnretained(self).toOpaque()) else {
            throw HTTP2TransportError(.setUp, "nghttp2 could not start a session")
        }
        self.session = session
        // No server push; a large window for answers (they are small anyway).
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
    }

    deinit { release() }

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
    var requests: LazyMapCollection<[Int32: HTTP2Stream], HTTP2Liveness.Request> {
        streams.lazy.map { HTTP2Liveness.Request(id: $0.key, started: $0.value.started, sent: $0.value.sent) }
    }

    /// Hands over the requests to send again, emptying the list.
    func takeRefused() -> [HTTP2Submission] {
        defer { refused.removeAll() }
        return refused
    }

    /// Queues one request (`canOpenStream` must be true).
    func submit(_ submission: HTTP2Submission, now: EpochTime) {
        guard let session else {
            refused.append(submission)
            return
        }
        // The header list points into the request's own fields (one buffer,
        // written by whoever made the request); nghttp2 copies them before
        // `nghttp2_submit_request` returns. A field marked never indexed
        // (APNs' `apns-id`, new in every request) is sent as a literal never
        // indexed (RFC 7541 §6.2.3): indexed, each id entered nghttp2's 4 KB
        // HPACK table, pushed out the values that repeat (the provider token
        // above all, ~300 bytes as an entry) and had them sent again: 3,900
        // instructions a push in `nghttp2_session_mem_send` (callgrind,
        // replay --send). nghttp2 already leaves `:path` unindexed
        // (`hd_deflate_should_indexing`, lib/nghttp2_hd.c).
        let stream = HTTP2Stream(submission, started: now)
        var provider = Self.bodyProvider
        let id = scratch.withFields(of: submission.request) { fields, count in
            nghttp2_submit_request(session, nil, fields, count, &provider, nil)
        }
        guard id > 0 else {
            submission.fail(HTTP2TransportError(.stream, "nghttp2: \(String(cString: nghttp2_strerror(id)))"))
            return
        }
        streams[id] = stream
    }

    /// Takes bytes read from the server; throws when they break the protocol.
    func receive(_ bytes: UnsafeRawBufferPointer) throws(HTTP2TransportError) {
        guard let session else { return }
        let used = nghttp2_session_mem_recv(session, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
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

    /// Gives up on one request: RST_STREAM (CANCEL) to the server, `error` to the caller.
    func cancel(_ id: Int32, failing error: HTTP2TransportError) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        if let session { nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue) }
        stream.submission.fail(error)
    }

    /// The connection is gone: requests never processed go to `refused`,
    /// the others fail with `failure`. Frees the nghttp2 session.
    func close(failing failure: HTTP2TransportError) {
        for (id, stream) in streams.sorted(by: { $0.key < $1.key }) {
            if !stream.sent || isAboveGoaway(id) {
                refused.append(stream.submission)
            } else {
                stream.submission.fail(failure)
            }
        }
        streams.removeAll()
        release()
    }

    /// The client is stopping: every request still here fails with `error`,
    /// and a GOAWAY is queued (the connection sends it, then `close`s).
    func abandon(failing error: HTTP2TransportError) {
        let open = streams.values.map(\.submission) + refused
        streams.removeAll()
        refused.removeAll()
        for submission in open { submission.fail(error) }
        if let session { nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue) }
    }

    func isAboveGoaway(_ id: Int32) -> Bool { goawayLastStream.map { id > $0 } ?? false }

    /// Frees the nghttp2 session (idempotent); what it refused stays to be taken.
    func release() {
        if let session { nghttp2_session_del(session) }
        session = nil
    }
}
