#if canImport(Glibc)
import Glibc
#endif

/// Networks whose clients may use the app's API without the API token
/// (`API_TRUSTED_NETWORKS`, e.g. `192.168.1.0/24, fd00::/8`): for the
/// unmodified seed app, which sends no `Authorization` header, on a home
/// network. Everyone else still needs the token.
public struct TrustedNetworks: Hashable, Sendable {
    /// One network: an address (16 bytes; IPv4 as IPv4-mapped IPv6) and how
    /// many leading bits must match.
    struct Network: Hashable, Sendable {
        var address: [UInt8]
        var bits: Int
    }

    let networks: [Network]

    public var isEmpty: Bool { networks.isEmpty }

    public struct ParseError: Error, CustomStringConvertible {
        public var description: String
    }

    public init() { networks = [] }

    /// The machine itself, exactly: 127.0.0.1 and ::1 (a process on another
    /// loopback address is treated as the LAN).
    public static let loopback = try! TrustedNetworks(parsing: "127.0.0.1/32,::1/128")
    /// ::1 as 16 bytes.
    static let ipv6Loopback: [UInt8] = [UInt8](repeating: 0, count: 15) + [1]

    /// Parses a comma- or space-separated list of CIDRs (a bare address is
    /// that one host).
    public init(parsing text: String) throws(ParseError) {
        var networks: [Network] = []
        for item in text.split(whereSeparator: { $0 == "," || $0 == " " }) where !item.isEmpty {
            let parts = item.split(separator: "/", maxSplits: 1)
            guard let address = Self.address(String(parts[0])) else {
                throw ParseError(description: "\"\(item)\" is not an IP address or network (e.g. 192.168.1.0/24)")
            }
            let isV4 = !parts[0].contains(":")
            let maximum = isV4 ? 32 : 128
            var bits = maximum
            if parts.count == 2 {
                guard let given = Int(parts[1]), (0...maximum).contains(given) else {
                    throw ParseError(description: "\"\(item)\": the prefix length must be 0 to \(maximum)")
                }
                bits = given
            }
            networks.append(Network(address: address, bits: isV4 ? bits + 96 : bits))
        }
        self.networks = networks
    }

    /// Whether a client address (16 bytes, as `address(_:)` makes them) is in one of the networks.
    public func contains(_ client: [UInt8]) -> Bool {
        guard client.count == 16 else { return false }
        return networks.contains { network in
            var remaining = network.bits
            for index in 0..<16 where remaining > 0 {
                let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
                if client[index] & mask != network.address[index] & mask { return false }
                remaining -= 8
            }
            return true
        }
    }

    /// An IPv4 or IPv6 address as 16 bytes (IPv4 as `::ffff:a.b.c.d`, as a
    /// dual-stack socket reports IPv4 clients); nil when it is neither.
    public static func address(_ text: String) -> [UInt8]? {
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + withUnsafeBytes(of: &v4) { Array($0) }
        }
        return nil
    }

    /// A 16-byte address as people write it: `192.0.2.1` for IPv4 (mapped), else IPv6's form.
    public static func text(_ address: [UInt8]) -> String {
        guard address.count == 16 else { return "?" }
        if address.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] {
            return address.suffix(4).map(String.init).joined(separator: ".")
        }
        var v6 = in6_addr()
        withUnsafeMutableBytes(of: &v6) { $0.copyBytes(from: address) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A peer address from `accept` as 16 bytes; nil for anything but IPv4 and IPv6.
    static func address(_ storage: sockaddr_storage) -> [UInt8]? {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET6:
            return withUnsafeBytes(of: &storage) { raw in
                raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_addr
            }.withUnsafeBytesArray
        case AF_INET:
            let v4 = withUnsafeBytes(of: &storage) { raw in raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self).pointee.sin_addr }
            var copy = v4
            return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + withUnsafeBytes(of: &copy) { Array($0) }
        default:
            return nil
        }
    }
}

extension in6_addr {
    fileprivate var withUnsafeBytesArray: [UInt8] {
        var copy = self
        return withUnsafeBytes(of: &copy) { Array($0) }
    }
}
