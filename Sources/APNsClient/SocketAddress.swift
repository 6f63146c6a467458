#if canImport(Glibc)
import Glibc
#endif

/// One address to connect to (IPv4 or IPv6, with the port), as getaddrinfo
/// gives it.
struct SocketAddress: Sendable {
    var storage: sockaddr_storage
    var length: socklen_t

    /// `host` when it is a numeric IPv4 or IPv6 address: nothing to look up,
    /// so no thread and no wait. Nil for a name (or a form only getaddrinfo
    /// reads, such as an IPv6 scope), which `resolve` looks up.
    init?(numericHost host: String, port: Int) {
        var storage = sockaddr_storage()
        let length: socklen_t
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v4, as: sockaddr_in.self) }
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v6, as: sockaddr_in6.self) }
        } else {
            return nil
        }
        self.storage = storage
        self.length = length
    }

    private init(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
        }
        self.storage = storage
        self.length = length
    }

    /// The addresses of `host`, in the order the system prefers (getaddrinfo:
    /// /etc/hosts, DNS, RFC 6724 sorting). Blocks for as long as a DNS lookup
    /// takes: never called on the client's loop thread (`AddressLookup`).
    @Sendable static func resolve(host: String, port: Int) -> Result<[SocketAddress], HTTP2TransportError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(host, String(port), &hints, &list)
        guard result == 0 else {
            return .failure(HTTP2TransportError(.connect, "cannot resolve \(host): \(String(cString: gai_strerror(result)))"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor?.pointee {
            if let address = entry.ai_addr { addresses.append(SocketAddress(address, length: entry.ai_addrlen)) }
            cursor = entry.ai_next
        }
        return .success(addresses)
    }
}
