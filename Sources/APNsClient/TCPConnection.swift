#if canImport(Glibc)
import Glibc
#endif

/// Connecting: the host's addresses tried in turn, each with a non-blocking
/// connect, until one answers. Owns the socket of the attempt in progress
/// and then the connected one, until `close` or deinit; the TLS stream over
/// it keeps this object alive as long as it uses the descriptor.
final class TCPConnection {
    enum Progress: Equatable {
        /// Waiting for the socket to become writable (`descriptor`).
        case connecting
        case connected
        /// No address answered: why, for the last one tried.
        case failed(HTTP2TransportError)
    }

    private(set) var descriptor: Int32 = -1
    private(set) var progress = Progress.connecting
    private let addresses: [SocketAddress]
    private var nextAddress = 0
    private var lastError = ""
    private let host: String
    private let authority: String

    /// Starts connecting to the first address that takes a connect.
    init(addresses: [SocketAddress], host: String, authority: String) {
        self.addresses = addresses
        self.host = host
        self.authority = authority
        connectNextAddress()
    }

    deinit { close() }

    /// Acts on `poll` reporting the socket writable while connecting: the
    /// connect finished, or failed and the next address is tried.
    func connectFinished() {
        guard progress == .connecting else { return }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size)
        if error == 0 {
            progress = .connected
            return
        }
        lastError = "connect to \(authority): \(String(cString: strerror(error)))"
        close()
        connectNextAddress()
    }

    /// Closes the socket (idempotent).
    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    private func connectNextAddress() {
        while nextAddress < addresses.count {
            var storage = addresses[nextAddress].storage
            let length = addresses[nextAddress].length
            nextAddress += 1
            let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            let socket = Glibc.socket(Int32(storage.ss_family), flags, 0)
            guard socket >= 0 else {
                lastError = "socket: \(String(cString: strerror(errno)))"
                continue
            }
            Self.setSocketOptions(socket)
            let result = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, length) }
            }
            if result == 0 || errno == EINPROGRESS {
                descriptor = socket
                progress = result == 0 ? .connected : .connecting
                return
            }
            lastError = "connect to \(authority): \(String(cString: strerror(errno)))"
            Glibc.close(socket)
        }
        progress = .failed(HTTP2TransportError(.connect, lastError.isEmpty ? "no address for \(host)" : lastError))
    }

    /// No Nagle delay (requests are small and go out at once); the kernel
    /// probes an idle connection after 30 s, every 10 s.
    private static func setSocketOptions(_ descriptor: Int32) {
        var on: Int32 = 1
        var idle: Int32 = 30
        var interval: Int32 = 10
        let size = socklen_t(MemoryLayout<Int32>.size)
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, size)
        setsockopt(descriptor, SOL_SOCKET, SO_KEEPALIVE, &on, size)
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPIDLE, &idle, size)
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL, &interval, size)
    }
}
