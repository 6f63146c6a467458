import PrintBridgeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server for the app's API: one thread, poll(2), one
/// request per connection, bounded headers and bodies, slow clients dropped.
/// The handler runs on the server thread and must be quick (store calls).
///
/// After its answer the server closes gently: it shuts its side, then reads
/// and discards what the client still sends until the client closes (bounded
/// by `Limits.lingerSeconds` and `Limits.lingerBytes`). An answer given
/// before the whole request arrived (413 for a body over the limit, 400 for
/// bad headers) therefore reaches the client. Closed at once, the socket
/// would answer the rest of the upload with a reset, and the client would
/// report a failed send instead of the 413.
public final class HTTPServer: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `connections` are used only on the
    // server thread; `stopping` is behind a Mutex; the rest is immutable.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    public struct Limits: Sendable {
        public var maximumHeaderBytes = 16 * 1024
        public var maximumBodyBytes = 64 * 1024
        /// A connection that has not sent its whole request by then is closed.
        public var requestTimeout: Double = 10
        public var maximumConnections = 64
        /// How long, and for how many bytes, a closing connection waits for
        /// the client to finish sending and close.
        public var lingerSeconds: Double = 2
        public var lingerBytes = 1 << 20
        public init() {}
    }

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    public let port: Int
    private let listener: Int32
    private let handler: Handler
    private let limits: Limits
    private let stopping = Mutex(false)
    private var thread = pthread_t()
    private var wakePipe: (read: Int32, write: Int32) = (-1, -1)

    private final class Connection {
        let descriptor: Int32
        let opened: Double
        var peer: [UInt8]?
        var input: [UInt8] = []
        var output: [UInt8] = []
        var written = 0
        /// Set once the answer is written: the side is shut, input discarded.
        var lingeringUntil: Double?
        var discarded = 0
        init(descriptor: Int32, opened: Double) {
            self.descriptor = descriptor
            self.opened = opened
        }
    }

    private var connections: [Int32: Connection] = [:]

    /// Listens on `host:port` (port 0: any free port; see `port`).
    public init(host: String, port: Int, limits: Limits = .init(), handler: @escaping Handler) throws(StartError) {
        self.handler = handler
        self.limits = limits
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let info = result else {
            throw StartError(description: "API_LISTEN: \(host) is not an IP address to listen on")
        }
        defer { freeaddrinfo(result) }
        let socket = Glibc.socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw StartError(description: "cannot create a socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(socket, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(socket, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw StartError(description: "cannot listen on \(host):\(port): \(reason)")
        }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(socket, $0, &length) }
        }
        let family = address.ss_family
        let bound = withUnsafePointer(to: &address) { pointer -> UInt16 in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        self.port = Int(bound)
        listener = socket
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        for descriptor in fds {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        wakePipe = (fds[0], fds[1])
    }

    deinit {
        close(listener)
        close(wakePipe.read)
        close(wakePipe.write)
    }

    public func start() {
        let retained = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { pointer in
            let server = Unmanaged<HTTPServer>.fromOpaque(pointer!).takeRetainedValue()
            server.serve()
            return nil
        }, retained)
    }

    /// Stops serving; connections in progress are closed. Safe from any thread.
    public func stop() {
        let already = stopping.withLock { value -> Bool in defer { value = true }; return value }
        guard !already else { return }
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
        pthread_join(thread, nil)
    }

    private func serve() {
        while !stopping.withLock({ $0 }) {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
            var wait = 1.0
            let started = monotonicSeconds()
            for (descriptor, connection) in connections {
                let writing = !connection.output.isEmpty && connection.lingeringUntil == nil
                fds.append(pollfd(fd: descriptor, events: Int16(writing ? POLLOUT : POLLIN), revents: 0))
                if let until = connection.lingeringUntil { wait = min(wait, max(0, until - started)) }
            }
            _ = poll(&fds, nfds_t(fds.count), Int32((wait * 1000).rounded(.up)))
            if fds[0].revents != 0 { accept() }
            for index in fds.indices.dropFirst(2) where fds[index].revents != 0 {
                service(fds[index].fd)
            }
            let now = monotonicSeconds()
            for (descriptor, connection) in connections {
                if let until = connection.lingeringUntil {
                    if now > until { drop(descriptor) }
                } else if connection.output.isEmpty && now - connection.opened > limits.requestTimeout {
                    drop(descriptor)
                }
            }
        }
        for descriptor in Array(connections.keys) { drop(descriptor) }
    }

    private func accept() {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let descriptor = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) }
            }
            guard descriptor >= 0 else { return }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            guard connections.count < limits.maximumConnections else {
                close(descriptor)
                continue
            }
            let connection = Connection(descriptor: descriptor, opened: monotonicSeconds())
            connection.peer = TrustedNetworks.address(address)
            connections[descriptor] = connection
        }
    }

    private func drop(_ descriptor: Int32) {
        connections[descriptor] = nil
        close(descriptor)
    }

    private func service(_ descriptor: Int32) {
        guard let connection = connections[descriptor] else { return }
        if connection.lingeringUntil != nil {
            var sink = [UInt8](repeating: 0, count: 16 * 1024)
            let count = sink.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            connection.discarded += max(count, 0)
            if count <= 0 || connection.discarded > limits.lingerBytes { drop(descriptor) }
            return
        }
        if !connection.output.isEmpty {
            let count = connection.output.withUnsafeBytes {
                send(descriptor, $0.baseAddress! + connection.written, $0.count - connection.written, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { return drop(descriptor) }
            connection.written += count
            if connection.written >= connection.output.count {
                shutdown(descriptor, Int32(SHUT_WR))
                connection.input = []
                connection.lingeringUntil = monotonicSeconds() + limits.lingerSeconds
            }
            return
        }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count <= 0 { return drop(descriptor) }
        connection.input += buffer[0..<count]
        switch HTTPRequestParser.parse(connection.input, limits: limits) {
        case .incomplete:
            return
        case .invalid(let response):
            connection.output = response.serialized()
        case .complete(var request):
            request.peer = connection.peer
            connection.output = handler(request).serialized()
        }
    }
}

func monotonicSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
