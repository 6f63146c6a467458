import CNGHTTP2

/// nghttp2's callbacks: answers arriving, frames sent or not, streams closing.
/// They run inside `receive`, `send(into:)` and `submit`, on the loop thread.
extension HTTP2Session {
    /// A client session whose callbacks reach the `HTTP2Session` at `user`,
    /// its memory from `pool` (which must outlive it).
    static func makeSession(user: UnsafeMutableRawPointer, pool: UnsafeMutablePointer<pb_nghttp2_pool>) -> OpaquePointer? {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0 else { return nil }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value else { return 0 }
            HTTP2Session.with(user) {
                $0.header(
                    stream: frame.pointee.hd.stream_id, name: UnsafeRawBufferPointer(start: name, count: nameLength),
                    value: UnsafeRawBufferPointer(start: value, count: valueLength))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            HTTP2Session.with(user) { session in
                if let data, let slot = session.openSlot(of: streamID) {
                    session.streams[slot].pointee.answerBody.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
                }
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            if let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
                HTTP2Session.with(user) { $0.headersSent(stream: frame.pointee.hd.stream_id) }
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, _, user in
            // A request's HEADERS that could not go out (a GOAWAY came first): never sent.
            if let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
                HTTP2Session.with(user) { $0.headersDropped(stream: frame.pointee.hd.stream_id) }
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame else { return 0 }
            HTTP2Session.with(user) { session in
                switch UInt32(frame.pointee.hd.type) {
                case NGHTTP2_GOAWAY.rawValue: session.goawayLastStream = frame.pointee.goaway.last_stream_id
                case NGHTTP2_PING.rawValue: session.pingReceived = true
                default: break
                }
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, user in
            HTTP2Session.with(user) { $0.streamClosed(streamID, errorCode: errorCode) }
            return 0
        }
        var session: OpaquePointer?
        guard nghttp2_session_client_new3(&session, callbacks, user, nil, &pool.pointee.mem) == 0 else { return nil }
        return session
    }

    /// A request body's source: the stream's bytes, read as nghttp2 asks.
    static var bodyProvider: nghttp2_data_provider {
        nghttp2_data_provider(source: nghttp2_data_source(ptr: nil)) { _, streamID, buffer, length, flags, _, user in
            HTTP2Session.with(user) { $0.bodyChunk(stream: streamID, into: buffer, capacity: length, flags: flags) }
        }
    }

    /// Runs `body` with the session at `user`, which owns the nghttp2
    /// session calling back and so outlives the call: borrowed, without
    /// the retain and release a plain reference costs (~80 instructions a
    /// callback, five callbacks a request; callgrind).
    private static func with<Result>(_ user: UnsafeMutableRawPointer?, _ body: (HTTP2Session) -> Result) -> Result {
        Unmanaged<HTTP2Session>.fromOpaque(user!)._withUnsafeGuaranteedRef(body)
    }

    private static var statusName: UnsafeRawBufferPointer {
        let name: StaticString = ":status"
        return UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
    }

    private func header(stream id: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard let slot = openSlot(of: id) else { return }
        let stream = streams[slot]
        if name.first == 0x3A, HTTP2Fields.same(name, Self.statusName) {
            // Three digits (RFC 9113 §8.3.2); anything else is no status.
            var status = 0
            for digit in value {
                guard (0x30...0x39).contains(digit), status < 1000 else { status = 0; break }
                status = status * 10 + Int(digit - 0x30)
            }
            // An informational answer (1xx) is followed by the real one.
            if status >= 200 { stream.pointee.status = status }
            return
        }
        stream.pointee.answerFields.append(name: name, value: value)
    }

    private func streamClosed(_ id: Int32, errorCode: UInt32) {
        guard let slot = slot(of: id) else { return }
        guard let batch = streams[slot].pointee.batch else {
            streams.free(slot)  // retired: nghttp2 is done with it
            return
        }
        let stream = streams[slot]
        let position = stream.pointee.position
        // The slot is freed after the batch has had its answer (the answer
        // points into it), and before anything else can take it.
        defer { streams.free(slot) }
        if errorCode == NGHTTP2_NO_ERROR.rawValue, stream.pointee.status > 0 {
            stream.pointee.answerBody.withUnsafeBytes { body in
                batch.answered(
                    position, with: HTTP2Answer(status: stream.pointee.status, fields: stream.pointee.answerFields.bytes, body: body))
            }
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue || !stream.pointee.sent || isAboveGoaway(id) {
            refused.append(HTTP2Submission(batch, positions: position..<(position + 1), refusals: stream.pointee.refusals))
        } else {
            let reason = errorCode == NGHTTP2_NO_ERROR.rawValue
                ? "the stream ended without an answer"
                : "the server reset the stream: \(String(cString: nghttp2_http2_strerror(errorCode)))"
            batch.failed(position, with: HTTP2TransportError(.stream, reason))
        }
    }

    /// A request's HEADERS went out: the server may have seen it. A
    /// retired stream's slot is free now (nghttp2 is done with its fields).
    private func headersSent(stream id: Int32) {
        guard let slot = slot(of: id) else { return }
        if streams[slot].pointee.batch == nil {
            streams.free(slot)
        } else {
            streams[slot].pointee.sent = true
        }
    }

    /// A request's HEADERS could not go out: never sent, to be sent again
    /// on the next connection.
    private func headersDropped(stream id: Int32) {
        guard let slot = slot(of: id) else { return }
        let stream = streams[slot]
        if let batch = stream.pointee.batch {
            let position = stream.pointee.position
            refused.append(HTTP2Submission(batch, positions: position..<(position + 1), refusals: stream.pointee.refusals))
        }
        streams.free(slot)
    }

    private func bodyChunk(
        stream id: Int32, into buffer: UnsafeMutablePointer<UInt8>?, capacity: Int, flags: UnsafeMutablePointer<UInt32>?
    ) -> Int {
        guard let slot = openSlot(of: id), let buffer else {
            flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let stream = streams[slot]
        let offset = stream.pointee.bodyOffset
        let count = stream.pointee.body.withUnsafeBufferPointer { source in
            let count = min(capacity, source.count - offset)
            if count > 0 { buffer.update(from: source.baseAddress! + offset, count: count) }
            if offset + count == source.count { flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            return count
        }
        stream.pointee.bodyOffset = offset + count
        return count
    }
}
