import CNGHTTP2

/// nghttp2's callbacks: answers arriving, frames sent or not, streams closing.
/// They run inside `receive`, `send(into:)` and `submit`, on the loop thread.
extension HTTP2Session {
    /// A client session whose callbacks reach the `HTTP2Session` at `user`.
    static func makeSession(user: UnsafeMutableRawPointer) -> OpaquePointer? {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0 else { return nil }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value else { return 0 }
            HTTP2Session.from(user).header(
                stream: frame.pointee.hd.stream_id, name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            if let data { HTTP2Session.from(user).streams[streamID]?.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length)) }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            if let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
                HTTP2Session.from(user).streams[frame.pointee.hd.stream_id]?.sent = true
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, _, user in
            // A request's HEADERS that could not go out (a GOAWAY came first): never sent.
            if let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
                HTTP2Session.from(user).refuse(stream: frame.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame else { return 0 }
            let session = HTTP2Session.from(user)
            switch UInt32(frame.pointee.hd.type) {
            case NGHTTP2_GOAWAY.rawValue: session.goawayLastStream = frame.pointee.goaway.last_stream_id
            case NGHTTP2_PING.rawValue: session.pingReceived = true
            default: break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, user in
            HTTP2Session.from(user).streamClosed(streamID, errorCode: errorCode)
            return 0
        }
        var session: OpaquePointer?
        guard nghttp2_session_client_new(&session, callbacks, user) == 0 else { return nil }
        return session
    }

    /// A request body's source: the stream's bytes, read as nghttp2 asks.
    static var bodyProvider: nghttp2_data_provider {
        nghttp2_data_provider(source: nghttp2_data_source(ptr: nil)) { _, streamID, buffer, length, flags, _, user in
            HTTP2Session.from(user).bodyChunk(stream: streamID, into: buffer, capacity: length, flags: flags)
        }
    }

    /// The session whose nghttp2 session is calling back (`init` says why it is there).
    private static func from(_ user: UnsafeMutableRawPointer?) -> HTTP2Session {
        Unmanaged<HTTP2Session>.fromOpaque(user!).takeUnretainedValue()
    }

    private func header(stream id: Int32, name: String, value: String) {
        guard let stream = streams[id] else { return }
        guard name == ":status" else {
            stream.headers[name] = value
            return
        }
        // Three digits (RFC 9113 §8.3.2); anything else is no status.
        guard value.utf8.count == 3, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let status = Int(value) else { return }
        // An informational answer (1xx) is followed by the real one.
        if status >= 200 { stream.status = status }
    }

    private func streamClosed(_ id: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        if errorCode == NGHTTP2_NO_ERROR.rawValue, stream.status > 0 {
            stream.exchange.finish(.success(stream.response))
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue || !stream.sent || isAboveGoaway(id) {
            refused.append(stream.exchange)
        } else {
            let reason = errorCode == NGHTTP2_NO_ERROR.rawValue
                ? "the stream ended without an answer"
                : "the server reset the stream: \(String(cString: nghttp2_http2_strerror(errorCode)))"
            stream.exchange.finish(.failure(HTTP2TransportError(.stream, reason)))
        }
    }

    /// A request's HEADERS could not go out: never sent, to be sent again
    /// on the next connection.
    private func refuse(stream id: Int32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        refused.append(stream.exchange)
    }

    private func bodyChunk(
        stream id: Int32, into buffer: UnsafeMutablePointer<UInt8>?, capacity: Int, flags: UnsafeMutablePointer<UInt32>?
    ) -> Int {
        guard let stream = streams[id], let buffer else {
            flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let body = stream.exchange.request.body
        let count = min(capacity, body.count - stream.bodyOffset)
        if count > 0 {
            body.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + stream.bodyOffset, count: count) }
        }
        stream.bodyOffset += count
        if stream.bodyOffset == body.count { flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}
