#if canImport(Glibc)
import Glibc
#endif

/// One address to connect to (IPv4 or IPv6, with the port), as getaddrinfo
/// gives it.
struct SocketAddress: Sendable {
    var storage: sockaddr_storage
    var length: socklen_t

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
    /// takes.
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
