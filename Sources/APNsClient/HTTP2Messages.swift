/// One HTTP/2 request to make on the client's origin: a push's POST, or
/// the channel management API's POST, GET or DELETE.
public struct HTTP2Request: Sendable {
    /// ":method": POST for a push; GET and DELETE for the channel
    /// management API ("Sending channel management requests to APNs").
    public var method: String
    /// The path and query, "/3/device/…".
    public var path: String
    /// Lower-case names (HTTP/2 requires it). The client adds ":method",
    /// ":scheme" and ":authority" before them and `content-length` after.
    public var headers: [HTTP2Header]
    public var body: [UInt8]

    public init(method: String = "POST", path: String, headers: [HTTP2Header], body: [UInt8]) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }
}

/// One header field of a request.
public struct HTTP2Header: Sendable, Hashable {
    public var name: String
    public var value: String
    /// Sent as a literal never indexed (RFC 7541 §6.2.3): for a value new
    /// in every request (APNs' `apns-id`). Indexed, each id entered
    /// nghttp2's 4 KB HPACK table and pushed out the values that repeat
    /// (the provider token above all, ~300 bytes as an entry), which were
    /// then sent whole again. (nghttp2 already leaves `:path` unindexed.)
    public var neverIndexed: Bool

    public init(_ name: String, _ value: String, neverIndexed: Bool = false) {
        self.name = name
        self.value = value
        self.neverIndexed = neverIndexed
    }
}

/// What the server answered.
public struct HTTP2Response: Sendable, Hashable {
    public var status: Int
    /// Lower-cased header names and their values (":status" left out; of
    /// a name sent twice, the last).
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Where a request's answer goes: called once, on the client's thread (or
/// at once on the caller's, when the client has stopped). Keep it short
/// and never wait in it.
public typealias HTTP2Completion = @Sendable (Result<HTTP2Response, HTTP2TransportError>) -> Void

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
