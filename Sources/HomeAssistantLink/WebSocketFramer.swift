import COpenSSL
import CWslay

/// WebSocket frames (RFC 6455 §5) on the client's side of an upgraded
/// connection, read and written with wslay's frame-level API (Debian's
/// libwslay 1.1.1): the server's bytes are taken a block at a time, not byte
/// by byte as libwebsockets 4.1.6's client does (`lws_ws_client_rx_sm`).
///
/// wslay 1.1.1's `wslay_frame_recv` (lib/wslay_frame.c) pulls bytes through
/// its recv callback into the context's own 4,096-byte buffer (one
/// `memcpy`), reads a header from it, and hands back payload as a pointer
/// into that buffer, at most the rest of the buffer at a time; it unmasks
/// byte by byte only masked frames, which a server never sends (§5.1). It
/// checks control frames' length and FIN and the 16- and 64-bit lengths'
/// minimal encoding, and nothing else: RSV bits, a mask from the server,
/// opcodes and the order of fragments are checked here. wslay's event API
/// (`wslay_event_*`) is not used: it copies every message into buffers of
/// its own and checks text messages' UTF-8 a byte at a time. Text is not
/// checked here either: libwebsockets did not check it (the link's context
/// does not set LWS_SERVER_OPTION_VALIDATE_UTF8), and HA's JSON goes to a
/// parser that refuses what is not UTF-8.
///
/// Used on the link's thread only (and by the tests and the fuzz target).
final class WebSocketFramer {
    /// The largest message taken; a longer one fails the connection (1009).
    let maximumMessageBytes: Int
    private var context: wslay_frame_context_ptr?
    /// The piece being read, and how much of it wslay has taken.
    private var input: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    private var inputOffset = 0
    /// Where `wslay_frame_send` puts a frame's bytes.
    private var output: [UInt8] = []
    /// Frames to write before anything else (pongs, the close answer).
    private(set) var pending: [UInt8] = []
    /// The frame being read: its opcode, and the payload still to come (nil: the next bytes start a frame).
    private var frameOpcode: UInt8 = 0
    private var frameFinal = false
    private var frameRemaining: UInt64?
    /// Inside a fragmented text or binary message (RFC 6455 §5.4), and its bytes so far.
    private var inMessage = false
    private var messageBytes: UInt64 = 0
    /// A control frame's payload (≤ 125 bytes, which may come in pieces).
    private var control: [UInt8] = []
    /// The connection is over for reading: a close came, or a fault.
    private(set) var isFinished = false
    /// A close frame went out (ours or the answer to the server's).
    private(set) var closeSent = false

    /// Close status codes (RFC 6455 §7.4.1).
    enum CloseCode: UInt16 {
        case normal = 1000
        case goingAway = 1001
        case protocolError = 1002
        case tooBig = 1009
    }

    /// What reading a piece came to.
    enum Outcome: Equatable {
        /// Read; more may come.
        case open
        /// The server closed; the answering close frame is in `pending`.
        case closed
        /// The server broke the protocol (why, for the log).
        case protocolError(String)
        /// A message would be over `maximumMessageBytes`.
        case messageTooLarge
    }

    init(maximumMessageBytes: Int) {
        self.maximumMessageBytes = maximumMessageBytes
        var callbacks = wslay_frame_callbacks(
            send_callback: { data, length, _, user in
                let framer = Unmanaged<WebSocketFramer>.fromOpaque(user!).takeUnretainedValue()
                framer.output.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
                return length
            },
            recv_callback: { buffer, length, _, user in
                let framer = Unmanaged<WebSocketFramer>.fromOpaque(user!).takeUnretainedValue()
                let count = min(length, framer.input.count - framer.inputOffset)
                guard count > 0, let buffer else { return 0 }  // 0: wslay says WSLAY_ERR_WANT_READ
                buffer.update(from: framer.input.baseAddress!.advanced(by: framer.inputOffset)
                    .assumingMemoryBound(to: UInt8.self), count: count)
                framer.inputOffset += count
                return count
            },
            genmask_callback: { buffer, length, _ in
                // Masks from a strong source (RFC 6455 §5.3).
                RAND_bytes(buffer, Int32(length)) == 1 ? 0 : -1
            })
        precondition(
            wslay_frame_context_init(&context, &callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0,
            "wslay has no memory")
    }

    deinit {
        if let context { wslay_frame_context_free(context) }
    }

    /// Reads the server's next bytes; every piece of a text or binary
    /// message goes to `deliver`, in order, `final` on the message's last
    /// (the pointer is good only during the call: it points into wslay's buffer).
    func receive(
        _ bytes: UnsafeRawBufferPointer, deliver: (UnsafeRawBufferPointer, _ final: Bool) -> Void
    ) -> Outcome {
        guard !isFinished else { return .open }
        input = bytes
        inputOffset = 0
        defer { input = UnsafeRawBufferPointer(start: nil, count: 0) }
        var iocb = wslay_frame_iocb()
        while true {
            let before = inputOffset
            let result = wslay_frame_recv(context, &iocb)
            if result == Int(WSLAY_ERR_WANT_READ.rawValue) {
                // wslay asks for more only when its buffer holds less than it needs.
                if inputOffset == input.count { return .open }
                if inputOffset == before { return fail("the WebSocket reader made no progress") }
                continue
            }
            if result < 0 { return fail("a malformed WebSocket frame header (wslay: \(result))") }
            if frameRemaining == nil {
                if let fault = startFrame(iocb) { return finish(fault) }
            }
            let piece = UnsafeRawBufferPointer(start: iocb.data, count: iocb.data_length)
            frameRemaining! -= UInt64(iocb.data_length)
            let frameEnds = frameRemaining == 0
            if frameEnds { frameRemaining = nil }
            if frameOpcode >= 8 {
                control.append(contentsOf: piece)
                if frameEnds, let outcome = controlFrame() { return finish(outcome) }
            } else if !piece.isEmpty || frameEnds {
                let last = frameEnds && frameFinal
                if last { inMessage = false }
                if !piece.isEmpty || last { deliver(piece, last) }
            }
            if inputOffset == input.count && frameRemaining != nil { return .open }
        }
    }

    /// Checks a frame's header (RFC 6455 §5.2, §5.4); nil when it may be read.
    private func startFrame(_ iocb: wslay_frame_iocb) -> Outcome? {
        frameOpcode = iocb.opcode
        frameFinal = iocb.fin != 0
        frameRemaining = iocb.payload_length
        if iocb.rsv != 0 { return .protocolError("a WebSocket frame with reserved bits set (no extension was agreed)") }
        if iocb.mask != 0 { return .protocolError("a masked WebSocket frame from the server (RFC 6455 §5.1)") }
        switch iocb.opcode {
        case 0:
            guard inMessage else { return .protocolError("a WebSocket continuation frame outside a message") }
        case 1, 2:
            guard !inMessage else { return .protocolError("a new WebSocket message inside an unfinished one") }
            inMessage = true
            messageBytes = 0
        case 8, 9, 10:
            control.removeAll(keepingCapacity: true)
            return nil
        default:
            return .protocolError("a WebSocket frame with the unknown opcode \(iocb.opcode)")
        }
        messageBytes += iocb.payload_length
        if messageBytes > UInt64(maximumMessageBytes) { return .messageTooLarge }
        return nil
    }

    /// A whole control frame (RFC 6455 §5.5): a ping is answered with a
    /// pong of the same payload, a pong is nothing to us (the session's
    /// liveness is HA's own ping command), a close is answered with a close.
    private func controlFrame() -> Outcome? {
        switch frameOpcode {
        case 9:
            pending += frame(opcode: 10, payload: control)
        case 10:
            break
        case 8:
            // A status code, or nothing (§5.5.1); the answer echoes the code.
            if control.count == 1 { return .protocolError("a WebSocket close frame with a one-byte status") }
            var answer: [UInt8] = []
            if control.count >= 2 {
                let code = UInt16(control[0]) << 8 | UInt16(control[1])
                // Codes an endpoint may send (§7.4.1, §7.4.2): 1000–1003, 1007–1014, 3000–4999.
                let valid = (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code)
                guard valid else { return .protocolError("a WebSocket close frame with the status \(code)") }
                answer = Array(control[0..<2])
            }
            pending += frame(opcode: 8, payload: answer)
            closeSent = true
            return .closed
        default:
            return .protocolError("a WebSocket frame with the unknown opcode \(frameOpcode)")
        }
        return nil
    }

    private func fail(_ reason: String) -> Outcome { finish(.protocolError(reason)) }

    private func finish(_ outcome: Outcome) -> Outcome {
        isFinished = true
        return outcome
    }

    /// Takes the frames waiting to be written (pongs, the close answer).
    func takePending() -> [UInt8] {
        defer { pending = [] }
        return pending
    }

    /// A final, masked text frame of `text` (RFC 6455 §5.2, §5.3).
    func textFrame(_ text: [UInt8]) -> [UInt8] { frame(opcode: 1, payload: text) }

    /// Our close frame with `code`, once (RFC 6455 §5.5.1); empty when one went out already.
    func closeFrame(_ code: CloseCode) -> [UInt8] {
        guard !closeSent else { return [] }
        closeSent = true
        return frame(opcode: 8, payload: [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)])
    }

    /// One final, masked frame. wslay writes it through the send callback,
    /// which always takes everything, so one call makes the whole frame.
    private func frame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
        output.removeAll(keepingCapacity: true)
        output.reserveCapacity(payload.count + 14)
        let written = payload.withUnsafeBufferPointer { data in
            var iocb = wslay_frame_iocb()
            iocb.fin = 1
            iocb.opcode = opcode
            iocb.mask = 1
            iocb.payload_length = UInt64(payload.count)
            iocb.data = data.baseAddress
            iocb.data_length = payload.count
            return wslay_frame_send(context, &iocb)
        }
        precondition(written == payload.count, "wslay could not write a frame (\(written))")
        defer { output = [] }
        return output
    }
}
