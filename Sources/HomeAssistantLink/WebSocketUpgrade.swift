import COpenSSL

/// The client's half of the WebSocket opening handshake (RFC 6455 §4.1),
/// written by us because the link's connection (ws://, and wss:// with
/// `LinkTLS` under it) is libwebsockets' RAW role (plain TCP):
/// libwebsockets 4.1.6's WebSocket client reads every
/// received byte through its per-byte state machine (`lws_ws_client_rx_sm`,
/// lib/roles/ws/client-ws.c, ~81 instructions a byte), 94 % of the agent's
/// work while ingesting HA's events; over RAW the frames are read a block at
/// a time (`WebSocketFramer`).
///
/// The request is the one libwebsockets 4.1.6 sends
/// (lws_generate_client_handshake, lib/roles/http/client/client-http.c, and
/// lws_generate_client_ws_handshake) but for `Host`, which carries the port
/// when it is not the scheme's default (RFC 7230 §5.4; libwebsockets leaves
/// it out) and no `Sec-WebSocket-Extensions` (none asked for: none may come).
struct WebSocketUpgrade {
    /// The largest answer head read; a longer one fails the connection
    /// (HA's is ~200 bytes; a proxy's error page head is under a few KB).
    static let headLimit = 16 * 1024

    /// Sec-WebSocket-Key: 16 random bytes in base64 (RFC 6455 §4.1, point 7).
    let key: String
    /// What `accept` must be in the answer (RFC 6455 §4.1, the client's fourth check).
    let expectedAccept: String
    private var head: [UInt8] = []

    init(key: String) {
        self.key = key
        expectedAccept = Self.accept(for: key)
    }

    /// A fresh key from OpenSSL's generator (the RFC wants it unpredictable).
    init() {
        var bytes = [UInt8](repeating: 0, count: 16)
        precondition(RAND_bytes(&bytes, Int32(bytes.count)) == 1, "OpenSSL has no random bytes")
        self.init(key: Self.base64(bytes))
    }

    /// The GET that asks for the upgrade. `Origin` is `http://<host>`, as
    /// libwebsockets sends it (client-http.c: "Origin: http://%s" without
    /// LWS_SERVER_OPTION_JUST_USE_RAW_ORIGIN).
    func request(host: String, port: Int, secure: Bool, path: String) -> [UInt8] {
        let name = host.contains(":") ? "[\(host)]" : host
        let authority = port == (secure ? 443 : 80) ? name : "\(name):\(port)"
        let text = "GET \(path) HTTP/1.1\r\n"
            + "Pragma: no-cache\r\n"
            + "Cache-Control: no-cache\r\n"
            + "Host: \(authority)\r\n"
            + "Origin: http://\(host)\r\n"
            + "Upgrade: websocket\r\n"
            + "Connection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\n"
            + "Sec-WebSocket-Version: 13\r\n"
            + "\r\n"
        return Array(text.utf8)
    }

    /// What the server answers to `key`: base64(SHA-1(key + the RFC's GUID)) (RFC 6455 §1.3, §4.2.2).
    static func accept(for key: String) -> String {
        let input = Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        precondition(EVP_Digest(input, input.count, &digest, &length, EVP_sha1(), nil) == 1, "OpenSSL has no SHA-1")
        return base64(Array(digest.prefix(Int(length))))
    }

    static func base64(_ bytes: [UInt8]) -> String {
        var text = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
        let count = EVP_EncodeBlock(&text, bytes, Int32(bytes.count))
        return String(decoding: text.prefix(Int(count)), as: UTF8.self)
    }

    /// What a piece of the answer did.
    enum Outcome: Equatable {
        /// The head is not whole yet.
        case needMore
        /// The server agreed; the bytes from `frameBytesAt` on in the last
        /// piece are the first WebSocket frame bytes.
        case upgraded(frameBytesAt: Int)
        /// The connection cannot go on; why, in words for the log.
        case failed(String)
    }

    /// Takes the next piece of the server's answer. Only the head is kept
    /// (up to `headLimit`); the end of the head is looked for from where the
    /// last piece ended, so that pieces of any size cost the same.
    mutating func receive(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        let before = head.count
        let room = Self.headLimit - before
        head.append(contentsOf: bytes.prefix(room))
        var index = max(0, before - 3)
        var end: Int?
        while index + 4 <= head.count {
            if head[index] == 13, head[index + 1] == 10, head[index + 2] == 13, head[index + 3] == 10 {
                end = index + 4
                break
            }
            index += 1
        }
        guard let end else {
            if head.count >= Self.headLimit {
                return .failed("Home Assistant's answer to the WebSocket upgrade has no end within \(Self.headLimit / 1024) KB")
            }
            return .needMore
        }
        let outcome = Self.check(head: head[..<end], expectedAccept: expectedAccept)
        head = []
        if let failure = outcome { return .failed(failure) }
        return .upgraded(frameBytesAt: end - before)
    }

    /// Why the head refuses the upgrade (RFC 6455 §4.1, the client's checks
    /// 1–6), or nil when it accepts it.
    static func check(head: ArraySlice<UInt8>, expectedAccept: String) -> String? {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true).map(String.init)
        guard !lines.isEmpty else { return "Home Assistant's answer to the WebSocket upgrade is empty" }
        let status = lines.removeFirst()
        let parts = status.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let code = Int(parts[1]) else {
            return "Home Assistant's answer to the WebSocket upgrade is not HTTP: \"\(printable(status))\""
        }
        guard code == 101 else {
            let reason = parts.count > 2 ? " " + printable(String(parts[2])) : ""
            return "Home Assistant answered \(code)\(reason) to the WebSocket upgrade"
        }
        var fields: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else {
                return "Home Assistant's answer to the WebSocket upgrade has a malformed header line"
            }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmedBlanks
            // Repeated fields are one list (RFC 7230 §3.2.2).
            fields[name] = fields[name].map { "\($0), \(value)" } ?? String(value)
        }
        guard fields["upgrade"]?.lowercased() == "websocket" else {
            return "Home Assistant's 101 answer has no \"Upgrade: websocket\""
        }
        let connection = fields["connection"]?.lowercased().split(separator: ",").map { $0.trimmedBlanks } ?? []
        guard connection.contains("upgrade") else {
            return "Home Assistant's 101 answer has no \"Connection: Upgrade\""
        }
        guard fields["sec-websocket-accept"] == expectedAccept else {
            return "Home Assistant's 101 answer has a wrong Sec-WebSocket-Accept (not for our key)"
        }
        // Nothing was asked for, so nothing may be agreed (RFC 6455 §4.1, checks 5 and 6).
        if fields["sec-websocket-extensions"] != nil {
            return "Home Assistant's 101 answer names WebSocket extensions the agent did not ask for"
        }
        if fields["sec-websocket-protocol"] != nil {
            return "Home Assistant's 101 answer names a subprotocol the agent did not ask for"
        }
        return nil
    }

    /// At most 80 printable ASCII characters of a server's text, for the log.
    private static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(80).map { (32..<127).contains($0.value) ? $0 : "?" }))
    }
}

extension Substring {
    fileprivate var trimmedBlanks: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
