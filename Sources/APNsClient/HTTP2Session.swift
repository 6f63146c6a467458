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
    /// Requests in flight (the callbacks fill in their answers).
    let streams = HTTP2StreamTable()
    /// Requests to send again on a new connection (`takeRefused`), runs of one.
    var refused: [HTTP2Submission] = []
    // @exclusivity(unchecked): the loop thread's own (HTTP2Client says why).
    /// The last stream a GOAWAY said the server will process.
    @exclusivity(unchecked) var goawayLastStream: Int32?
    /// A PING (or its answer) arrived since the connection last looked.
    @exclusivity(unchecked) var pingReceived = false
    @exclusivity(unchecked) private var session: OpaquePointer?
    private var pool: UnsafeMutablePointer<pb_nghttp2_pool>?
    private let scratch: HeaderScratch
    private let authority: String
    private let maximumStreams: Int

    /// Starts the session and queues this side's SETTINGS.
    init(authority: String, maximumStreams: Int) throws(HTTP2TransportError) {
        self.authority = authority
        self.maximumStreams = maximumStreams
        scratch = HeaderScratch(authority: authority)
        // The callbacks reach this object through nghttp2's user data: it
        // owns the session, which is freed before it goes (`close`, deinit),
        // and the session's memory pool, freed after it (CNGHTTP2/shim.h).
        guard let pool = pb_nghttp2_pool_new() else { throw HTTP2TransportError(.setUp, "nghttp2: out of memory") }
        self.pool = pool
        guard let session = Self.makeSession(user: Unmanaged.passUnretained(self).toOpaque(), pool: pool) else {
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

    /// Streams in flight (sent or about to be).
    var openStreams: Int { streams.openCount }

    /// Whether a new request can be submitted now: no GOAWAY, and fewer
    /// streams than this side's limit and the server's.
    var canOpenStream: Bool {
        guard goawayLastStream == nil, let session else { return false }
        let serverLimit = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return streams.openCount < min(maximumStreams, max(1, serverLimit))
    }

    /// After a GOAWAY, the session is done once its last stream is.
    var isFinished: Bool { goawayLastStream != nil && streams.openCount == 0 }

    /// The requests in flight, as liveness sees them.
    var requests: some Sequence<HTTP2Liveness.Request> {
        streams.openSlots.lazy.map { [streams] slot in
            let stream = streams[slot]
            return HTTP2Liveness.Request(id: stream.pointee.id, started: stream.pointee.started, sent: stream.pointee.sent)
        }
    }

    /// Hands over the requests to send again, emptying the list.
    func takeRefused() -> [HTTP2Submission] {
        defer { refused.removeAll() }
        return refused
    }

    /// Queues request `position` of `batch` (`canOpenStream` must be true).
    func submit(_ batch: any HTTP2RequestBatch, position: Int, refusals: Int, now: EpochTime) {
        guard let session else {
            refused.append(HTTP2Submission(batch, positions: position..<(position + 1), refusals: refusals))
            return
        }
        // The batch writes the request into its stream's slot, in memory
        // kept from the slot's last request. The header list points into
        // it, and nghttp2 keeps those pointers, not copies, until the
        // HEADERS frame has gone out (HeaderScratch). A field marked never
        // indexed (APNs' `apns-id`, new in every request) is sent as a
        // literal never indexed (RFC 7541 §6.2.3): indexed, each id entered
        // nghttp2's 4 KB HPACK table, pushed out the values that repeat (the
        // provider token above all, ~300 bytes as an entry) and had them
        // sent again: 3,900 instructions a push in `nghttp2_session_mem_send`
        // (callgrind, replay --send). nghttp2 already leaves `:path`
        // unindexed (`hd_deflate_should_indexing`, lib/nghttp2_hd.c).
        let slot = streams.open(batch, position: position, refusals: refusals, started: now)
        let stream = streams[slot]
        let body = batch.request(position, writing: &stream.pointee.fields)
        Self.appendContentLength(body.count, to: &stream.pointee.fields)
        stream.pointee.body = body
        var provider = Self.bodyProvider
        let id = scratch.withFields(of: stream.pointee.fields.bytes) { fields, count in
            nghttp2_submit_request(session, nil, fields, count, &provider, HTTP2StreamTable.userData(slot))
        }
        guard id > 0 else {
            streams.free(slot)
            batch.failed(position, with: HTTP2TransportError(.stream, "nghttp2: \(String(cString: nghttp2_strerror(id)))"))
            return
        }
        stream.pointee.id = id
    }

    /// A request's `content-length`, written last among its fields.
    static func appendContentLength(_ count: Int, to fields: inout some HTTP2FieldAppending & ~Copyable) {
        fields.append("content-length", decimal: count)
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
        guard let slot = openSlot(of: id) else { return }
        let batch = streams[slot].pointee.batch, position = streams[slot].pointee.position
        forget(slot)
        if let session { nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue) }
        batch?.failed(position, with: error)
    }

    /// The connection is gone: requests never processed go to `refused`,
    /// the others fail with `failure`. Frees the nghttp2 session.
    func close(failing failure: HTTP2TransportError) {
        let open = streams.openSlots.sorted { streams[$0].pointee.id < streams[$1].pointee.id }
        var failed: [(any HTTP2RequestBatch, Int)] = []
        for slot in open {
            let stream = streams[slot]
            guard let batch = stream.pointee.batch else { continue }
            let position = stream.pointee.position
            if !stream.pointee.sent || isAboveGoaway(stream.pointee.id) {
                refused.append(HTTP2Submission(batch, positions: position..<(position + 1), refusals: stream.pointee.refusals))
            } else {
                failed.append((batch, position))
            }
            forget(slot)
        }
        release()
        for (batch, position) in failed { batch.failed(position, with: failure) }
    }

    /// The client is stopping: every request still here fails with `error`,
    /// and a GOAWAY is queued (the connection sends it, then `close`s).
    func abandon(failing error: HTTP2TransportError) {
        var open: [(any HTTP2RequestBatch, Int)] = []
        for slot in Array(streams.openSlots) {
            if let batch = streams[slot].pointee.batch { open.append((batch, streams[slot].pointee.position)) }
            forget(slot)
        }
        let left = refused
        refused.removeAll()
        for (batch, position) in open { batch.failed(position, with: error) }
        for submission in left { submission.fail(error) }
        if let session { nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue) }
    }

    func isAboveGoaway(_ id: Int32) -> Bool { goawayLastStream.map { id > $0 } ?? false }

    /// The open stream `id`'s slot, if it is still ours.
    func openSlot(of id: Int32) -> Int? {
        guard let slot = slot(of: id), streams[slot].pointee.batch != nil else { return nil }
        return slot
    }

    /// Stream `id`'s slot, open or retired, if the slot still holds it.
    func slot(of id: Int32) -> Int? {
        guard let session else { return nil }
        return streams.slot(of: id, userData: nghttp2_session_get_stream_user_data(session, id))
    }

    /// Lets go of a stream before nghttp2 closed it. Its slot is reused at
    /// once if its HEADERS went out, after nghttp2 has sent or dropped them
    /// otherwise (`HTTP2StreamTable.retire`). A later callback for the
    /// stream finds the slot's id changed and does nothing.
    func forget(_ slot: Int) {
        if streams[slot].pointee.sent {
            streams.free(slot)
        } else {
            streams.retire(slot)
        }
    }

    /// Frees the nghttp2 session (idempotent); what it refused stays to be taken.
    func release() {
        if let session { nghttp2_session_del(session) }
        session = nil
        pb_nghttp2_pool_delete(pool)
        pool = nil
    }
}
