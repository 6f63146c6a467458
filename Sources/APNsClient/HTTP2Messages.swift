/// One HTTP/2 POST to make on the client's origin.
public struct HTTP2Request: Sendable {
    /// ":path" first, then the request's own fields, lower-case (HTTP/2
    /// requires it). The session adds ":method", ":scheme", ":authority"
    /// before them and `content-length` after.
    public var fields: HTTP2Fields
    public var body: [UInt8]

    /// A request whose fields (":path" first) were written by the caller.
    public init(fields: HTTP2Fields, body: [UInt8]) {
        self.fields = fields
        self.body = body
    }

    /// A request to `path` ("/3/device/…") with `headers`.
    public init(path: String, headers: [(String, String)], body: [UInt8]) {
        self.init(fields: HTTP2Fields([(":path", path)] + headers), body: body)
    }

    /// The path and query.
    public var path: String { fields[":path"] ?? "" }
}

/// What the server answered.
public struct HTTP2Response: Sendable, Hashable {
    public var status: Int
    /// The answer's fields as they came (lower-case names), ":status" left out.
    public var fields: HTTP2Fields
    public var body: [UInt8]

    public init(status: Int, fields: HTTP2Fields, body: [UInt8]) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// Lower-cased header names and their values.
    public var headers: [String: String] { fields.dictionary }
}

/// A request that never got an HTTP answer, and why.
public struct HTTP2TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The client was shut down before the request finished.
        case shutdown
        /// No connection: name lookup, TCP connect or its timeout.
        case connect
        /// The TLS handshake failed (certificate, protocol, no HTTP/2 offered).
        case tls
        /// The connection broke or the server closed it with the request unanswered.
        case connectionLost
        /// Requests waited and nothing at all came back, not even a PING's answer.
        case stalled
        /// The server reset the stream, or broke the HTTP/2 protocol.
        case stream
        /// No answer within the request timeout.
        case timeout
        /// The client could not start (its thread, an OpenSSL or nghttp2 object).
        case setUp
    }

    public var kind: Kind
    public var message: String
    public var isShutdown: Bool { kind == .shutdown }
    public var description: String { "\(kind.rawValue): \(message)" }

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    static let shutdown = HTTP2TransportError(.shutdown, "client shut down")
}

/// Where the client connects: "https://host[:port]" (an IPv6 host in brackets).
public struct HTTPOrigin: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// ":authority" as sent: the host (bracketed if IPv6) and a port other than 443.
    public var authority: String
    public var description: String { "https://" + authority }

    /// Nil when the text is not an https origin without path or user info.
    public init?(_ text: String) {
        guard text.lowercased().hasPrefix("https://") else { return nil }
        var rest = Substring(text.dropFirst("https://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@"), !rest.contains("?") else { return nil }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else {
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return nil }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
        }
        var port = 443
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else { return nil }
            port = number
        }
        guard !host.isEmpty else { return nil }
        self.host = String(host)
        self.port = port
        let hostPart = host.contains(":") ? "[\(host)]" : String(host)
        authority = port == 443 ? hostPart : "\(hostPart):\(port)"
    }
}
