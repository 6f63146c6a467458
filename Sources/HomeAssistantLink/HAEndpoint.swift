import PrintBridgeCore

/// Where HA's WebSocket API is, from what a user writes: `http://ha.local:8123`,
/// `https://ha.example.com`, `ws://…/api/websocket`, or inside an add-on
/// `ws://supervisor/core/websocket`.
public struct HAEndpoint: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var path: String
    public var secure: Bool

    public struct Invalid: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    public init(url: String) throws(Invalid) {
        let text = String(url.trimmingWhitespace)
        let schemes: [(String, Bool, Int)] = [("http://", false, 8123), ("ws://", false, 8123), ("https://", true, 443), ("wss://", true, 443)]
        guard let (scheme, secure, defaultPort) = schemes.first(where: { text.lowercased().hasPrefix($0.0) }) else {
            throw Invalid(description: "HA_URL must start with http://, https://, ws:// or wss:// (got \"\(text)\")")
        }
        let rest = text.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<query]) }
        var host = String(authority)
        var port = defaultPort
        if host.hasPrefix("[") {  // [::1]:8123
            guard let close = host.firstIndex(of: "]") else { throw Invalid(description: "HA_URL has an unclosed [IPv6] address") }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()), (1...65535).contains(number) else {
                    throw Invalid(description: "HA_URL has an invalid port")
                }
                port = number
            }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            guard let number = Int(host[host.index(after: colon)...]), (1...65535).contains(number) else {
                throw Invalid(description: "HA_URL has an invalid port")
            }
            port = number
            host = String(host[..<colon])
        }
        guard !host.isEmpty else { throw Invalid(description: "HA_URL has no host") }
        if path.isEmpty || path == "/" { path = "/api/websocket" }
        self.host = host
        self.port = port
        self.path = path
        self.secure = secure
    }

    public var description: String { "\(secure ? "wss" : "ws")://\(host.contains(":") ? "[\(host)]" : host):\(port)\(path)" }
}
