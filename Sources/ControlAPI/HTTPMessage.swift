/// An HTTP request as the API sees it.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, percent-decoding not applied.
    public var path: String
    /// What follows the path's `?`, as sent ("" without one).
    public var query: String
    /// Lower-cased header names.
    public var headers: [String: String]
    public var body: [UInt8]
    /// The client's address (16 bytes, IPv4 as IPv4-mapped IPv6), when known.
    public var peer: [UInt8]?
    /// It came over TLS (the API's HTTPS).
    public var isSecure = false

    public init(
        method: String, path: String, query: String = "", headers: [String: String] = [:], body: [UInt8] = [],
        peer: [UInt8]? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.peer = peer
    }
}

/// An HTTP response: status, JSON body.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var body: String
    public var contentType = "application/json"
    public var extraHeaders: [(String, String)] = []
    /// A body that is not text (a picture); sent instead of `body` when set.
    public var bytes: [UInt8]?

    public init(status: Int, body: String, contentType: String = "application/json") {
        self.status = status
        self.body = body
        self.contentType = contentType
    }

    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.contentType == rhs.contentType && lhs.bytes == rhs.bytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(body)
    }

    static let reasons: [Int: String] = [
        200: "OK", 201: "Created", 303: "See Other", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 410: "Gone", 429: "Too Many Requests", 413: "Payload Too Large", 415: "Unsupported Media Type", 500: "Internal Server Error",
        503: "Service Unavailable",
    ]

    /// The wire form, HTTP/1.1, connection closed after it.
    func serialized() -> [UInt8] {
        let bodyBytes = bytes ?? Array(body.utf8)
        var head = "HTTP/1.1 \(status) \(Self.reasons[status] ?? "Status")\r\n"
        head += "Content-Type: \(contentType)\r\nContent-Length: \(bodyBytes.count)\r\nConnection: close\r\n"
        if !extraHeaders.contains(where: { $0.0 == "Cache-Control" }) { head += "Cache-Control: no-store\r\n" }
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + bodyBytes
    }
}
