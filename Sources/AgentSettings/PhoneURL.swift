#if canImport(Glibc)
import Glibc
#endif

/// An address phones reach the API at, as pairing puts it in the QR code
/// (API_HOME_URL, API_OUTSIDE_URL): `https://host[:port]`, or `http://` for
/// an API that speaks plain HTTP. The app appends `/api/…` to it, so a path,
/// a query, a fragment or a user name has no place in it.
public struct PhoneURL: Hashable, Sendable, CustomStringConvertible {
    public enum HostKind: Hashable, Sendable {
        case name, ipv4, ipv6
    }

    /// `https`.
    public let secure: Bool
    /// The host in lower case; an IPv6 address without its brackets.
    public let host: String
    public let hostKind: HostKind
    /// The port as written; nil for the scheme's own (443, 80).
    public let port: Int?

    /// Why a text is not such an address, said without the setting's name.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public let description: String
    }

    public init(parsing text: String) throws(Problem) {
        func problem(_ message: String) -> Problem { Problem(description: message) }
        let example = "e.g. https://192.168.1.20:3000"
        let lowered = text.lowercased()
        let rest: Substring
        if lowered.hasPrefix("https://") {
            secure = true
            rest = text.dropFirst(8)
        } else if lowered.hasPrefix("http://") {
            secure = false
            rest = text.dropFirst(7)
        } else if let scheme = text.firstRange(of: "://") {
            throw problem("must start with https:// (or http://), not \(text[..<scheme.lowerBound])://")
        } else {
            throw problem("must be a URL with a scheme and a host, \(example), not \(text)")
        }
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<end], tail = rest[end...]
        guard tail.isEmpty || tail == "/" else {
            throw problem("takes no path, query or fragment (\(tail)): the app adds /api/… itself; give scheme, host and port, \(example)")
        }
        guard !authority.contains("@") else {
            throw problem("takes no user name or password: the app sends its own credential")
        }
        var host = authority, portText: Substring?, bracketed = false
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw problem("has an unclosed [ in its host") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.first == ":" { portText = after.dropFirst() } else if !after.isEmpty { throw problem("has \(after) after its host") }
            bracketed = true
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
            if portText?.contains(":") == true {
                throw problem("has an IPv6 address without brackets: write https://[fd00::20]:3000")
            }
        }
        guard !host.isEmpty else { throw problem("has no host, \(example)") }
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                let port = Int(portText), (1...65535).contains(port)
            else { throw problem("has a port that is not 1-65535: \(portText)") }
            self.port = port
        } else {
            port = nil
        }
        self.host = host.lowercased()
        var bytes = in6_addr()
        if bracketed {
            guard inet_pton(AF_INET6, self.host, &bytes) == 1 else { throw problem("has [\(host)] as its host, which is not an IPv6 address") }
            hostKind = .ipv6
        } else if inet_pton(AF_INET, self.host, &bytes) == 1 {
            hostKind = .ipv4
        } else if self.host.allSatisfy({ $0.isNumber || $0 == "." }) {
            throw problem("has \(host) as its host, which is not an IPv4 address")
        } else if Self.isHostName(self.host) {
            hostKind = .name
        } else {
            throw problem("has \(host) as its host, which is neither a host name nor an IP address")
        }
        if self.host == "0.0.0.0" || (hostKind == .ipv6 && Self.sameIPv6(self.host, "::")) {
            throw problem("has \(host) as its host, a wildcard address no phone can reach: give this machine's LAN address or name")
        }
    }

    /// `https://host:port` as the app is given it: scheme and host in lower
    /// case, an IPv6 address in brackets, no trailing slash.
    public var description: String {
        "\(secure ? "https" : "http")://\(hostKind == .ipv6 ? "[\(host)]" : host)\(port.map { ":\($0)" } ?? "")"
    }

    /// A loopback address or `localhost`: only a program on this machine reaches it.
    public var isLoopback: Bool {
        switch hostKind {
        case .name: return host == "localhost" || host.hasSuffix(".localhost")
        case .ipv4: return host.hasPrefix("127.")
        case .ipv6: return Self.sameIPv6(host, "::1")
        }
    }

    /// Letters, digits and hyphens in dot-separated labels of 1-63 (RFC 1123),
    /// 253 at most; a final dot is allowed.
    static func isHostName(_ text: String) -> Bool {
        let name = text.hasSuffix(".") ? String(text.dropLast()) : text
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    static func sameIPv6(_ left: String, _ right: String) -> Bool {
        var a = in6_addr(), b = in6_addr()
        guard inet_pton(AF_INET6, left, &a) == 1, inet_pton(AF_INET6, right, &b) == 1 else { return false }
        return withUnsafeBytes(of: &a) { a in withUnsafeBytes(of: &b) { b in a.elementsEqual(b) } }
    }
}
