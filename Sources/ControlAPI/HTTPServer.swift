import NamedThreads
import PrintBridgeCore
import Synchronization
import TLSEngine

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server for the app's API: one thread, poll(2), one
/// request per connection, bounded headers and bodies, slow clients dropped.
/// The handler runs on the server thread and must be quick (store calls).
///
/// The thread sleeps until a connection or its input arrives, `stop` wakes
/// it (a pipe), or the nearest connection deadline (a request's timeout, the
/// end of a linger) comes. With no connection it has no deadline, and it
/// does not wake at all.
///
/// Hand-written rather than libwebsockets' HTTP server: the API would need a
/// second lws context and thread beside the HA client's, and lws serves
/// HTTP heads from a fixed pool of header buffers that connections waiting
/// for their headers hold, the same starvation this server must defend
/// against. What it does against strangers:
/// - a deadline for the head (`headerTimeout`, 5 s) and for the whole request
///   (`requestTimeout`, 10 s), answered 408 where the client still listens;
/// - at most `maximumConnections` (1,024, or fewer if the descriptor limit
///   is lower); a connection over that evicts the oldest connection still
///   waiting for its request from the client that holds the most, which is
///   answered 503, so idle or trickling connections from one address never
///   lock anyone out (`/healthz` included); if nothing can be evicted the
///   new connection is answered 503;
/// - `HTTPRequestParser`: linear in its input, strict (one Content-Length,
///   digits only; CRLF or an immediate 400; a head over 16 KB is a 431).
///
/// HTTPS and HTTP on one port (`TLSPolicy`): a connection whose first byte
/// is a TLS handshake record (0x16) is served over TLS (`TLSConnection`,
/// non-blocking, the same deadlines: the handshake counts as the head); any other is plain
/// HTTP, served only to the peers the policy allows (loopback, HA's ingress
/// proxy, and while upgrading the LAN), others get a 400 saying to use https.
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
    // server thread; `stopping` is behind a Mutex, `wakes` atomic; the rest is immutable.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// A handler that may answer later: nil now, and the answer through the
    /// `HTTPReply` once it has one (from any thread).
    public typealias DeferringHandler = @Sendable (HTTPRequest, HTTPReply) -> HTTPResponse?

    public struct Limits: Sendable {
        public var maximumHeaderBytes = 16 * 1024
        public var maximumBodyBytes = 64 * 1024
        /// A connection that has not sent its request's head by then is answered 408 and closed.
        public var headerTimeout: Double = 5
        /// A connection that has not sent its whole request by then is answered 408 and closed.
        public var requestTimeout: Double = 10
        /// A request whose handler answers later (`HTTPReply`) is answered
        /// 504 when no answer has come by then.
        public var replyTimeout: Double = 30
        /// Connections held at once (lowered to fit the descriptor limit).
        public var maximumConnections = 1024
        /// How long, and for how many bytes, a closing connection waits for
        /// the client to finish sending and close.
        public var lingerSeconds: Double = 2
        public var lingerBytes = 1 << 20
        /// Connections accepted since the server was last idle before its
        /// `whenIdle` is called again (a busy spell): fewer leave too little
        /// freed to be worth handing back (a TLS connection takes about
        /// 50 KB while open; 64 of them, 3 MB at most), and a phone's
        /// occasional request does not trim the heap each time.
        public var busySpell = 64
        public init() {}
    }

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// HTTPS beside HTTP on the same port.
    public struct TLSPolicy: Sendable {
        public let context: TLSServerContext
        /// Whether a peer (its address bytes) may speak plain HTTP.
        public let plainAllowed: @Sendable ([UInt8]?) -> Bool
        /// The URL to tell a peer refused plain HTTP to use instead.
        public let httpsHint: String

        public init(context: TLSServerContext, httpsHint: String, plainAllowed: @escaping @Sendable ([UInt8]?) -> Bool) {
            self.context = context
            self.httpsHint = httpsHint
            self.plainAllowed = plainAllowed
        }
    }

    public let port: Int
    private let listener: Int32
    private let handler: DeferringHandler
    private let limits: Limits
    private let tls: TLSPolicy?
    private let stopping = Mutex(false)
    private let whenIdle: (@Sendable () -> Void)?
    /// Connections accepted since the last call of `whenIdle` (server thread only).
    private var acceptedSinceIdle = 0
    private var thread: NamedThread?
    private var wakePipe: (read: Int32, write: Int32) = (-1, -1)

    private final class Connection {
        let descriptor: Int32
        let opened: Double
        var peer: [UInt8]?
        /// Plain or TLS; undecided until its first byte (a server with TLS).
        var transport: Transport
        /// TLS waits for the socket to take output before it goes on.
        var tlsWantsWrite = false
        var parser: HTTPRequestParser
        var output: [UInt8] = []
        var written = 0
        /// Set once the answer is written: the side is shut, input discarded.
        var lingeringUntil: Double?
        var discarded = 0
        /// Its handler answers later (`HTTPReply`): since when, and the reply's number.
        var awaiting: (since: Double, serial: UInt64)?
        init(descriptor: Int32, opened: Double, limits: Limits, transport: Transport) {
            self.descriptor = descriptor
            self.opened = opened
            self.transport = transport
            parser = HTTPRequestParser(limits: limits)
        }

        var tls: TLSConnection? {
            if case .tls(let tls) = transport { return tls }
            return nil
        }

        /// Still waiting for (the rest of) its request.
        var isReceiving: Bool { output.isEmpty && lingeringUntil == nil && awaiting == nil }
    }

    private enum Transport {
        case undecided
        case plain
        case tls(TLSConnection)
    }

    /// Answers given later (`HTTPReply`), for the server thread to write.
    private let replies = Mutex<[(serial: UInt64, response: HTTPResponse)]>([])
    private let replySerials = Atomic<UInt64>(0)

    /// Connections served so far that were evicted or refused for capacity, or timed out.
    private let counters = Mutex((evicted: 0, refused: 0, timedOut: 0))
    public var statistics: (evicted: Int, refused: Int, timedOut: Int) { counters.withLock { $0 } }

    /// How often the server thread has returned from poll(2): input, a stop,
    /// or a deadline. An idle server adds none.
    public var wakeUps: Int { wakes.load(ordering: .relaxed) }
    private let wakes = Atomic(0)

    /// The connections open now (a test waits for the last to go before it
    /// judges the wake-ups that follow).
    public var openConnections: Int { open.load(ordering: .relaxed) }
    private let open = Atomic(0)

    private var connections: [Int32: Connection] = [:] {
        didSet { open.store(connections.count, ordering: .relaxed) }
    }
    /// One read buffer for every connection (server thread only).
    private var receiveBuffer = [UInt8](repeating: 0, count: 16 * 1024)

    /// Listens on `host:port` (port 0: any free port; see `port`).
    public convenience init(
        host: String, port: Int, limits: Limits = .init(), tls: TLSPolicy? = nil, whenIdle: (@Sendable () -> Void)? = nil,
        handler: @escaping Handler
    ) throws(StartError) {
        try self.init(
            host: host, port: port, limits: limits, tls: tls, whenIdle: whenIdle, deferring: { request, _ in handler(request) })
    }

    /// Listens on `host:port`; `deferring` may answer a request later; with
    /// `tls`, HTTPS on the same port.
    ///
    /// `whenIdle` is called on the server thread when its last connection
    /// has gone after a busy spell (`Limits.busySpell` connections accepted
    /// since the last call): once per spell, never while a connection is
    /// open, never on a server that was idle all along, and without waking
    /// the thread for it (it runs on the wake that let the last connection
    /// go). `run` hands back the memory a flood of connections left in the
    /// allocator there (`FreedMemory.release`).
    public init(
        host: String, port: Int, limits: Limits = .init(), tls: TLSPolicy? = nil, whenIdle: (@Sendable () -> Void)? = nil,
        deferring handler: @escaping DeferringHandler
    ) throws(StartError) {
        self.handler = handler
        self.whenIdle = whenIdle
        self.tls = tls
        var limits = limits
        // Leave room for the agent's other descriptors (store, HA, APNs, logs).
        var descriptors = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptors) == 0, descriptors.rlim_cur < rlim_t(Int32.max) {
            limits.maximumConnections = max(8, min(limits.maximumConnections, Int(descriptors.rlim_cur) - 64))
        }
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
        guard bind(socket, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(socket, 512) == 0 else {
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

    /// Starts serving on a thread of its own (which holds the server until `stop`).
    public func start() throws(NamedThread.StartError) {
        thread = try NamedThread("pb-api") { [self] in serve() }
    }

    /// Stops serving; connections in progress are closed. Safe from any thread.
    public func stop() {
        let already = stopping.withLock { value -> Bool in defer { value = true }; return value }
        guard !already else { return }
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
        thread?.join()
    }

    private func serve() {
        while !stopping.withLock({ $0 }) {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
            var next = Double.infinity
            for (descriptor, connection) in connections {
                let writing = (!connection.output.isEmpty && connection.lingeringUntil == nil) || connection.tlsWantsWrite
                // Awaiting its answer: only a hang-up or an error (always reported) matters.
                let events = connection.awaiting != nil ? 0 : Int16(writing ? POLLOUT : POLLIN)
                fds.append(pollfd(fd: descriptor, events: events, revents: 0))
                next = min(next, deadline(of: connection))
            }
            _ = poll(&fds, nfds_t(fds.count), Self.pollTimeout(until: next, now: MonotonicClock.seconds()))
            wakes.add(1, ordering: .relaxed)
            if fds[1].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 64)
                while read(wakePipe.read, &sink, sink.count) > 0 {}
            }
            deliverReplies()
            for index in fds.indices.dropFirst(2) where fds[index].revents != 0 {
                service(fds[index].fd)
            }
            if fds[0].revents != 0 { accept() }
            let now = MonotonicClock.seconds()
            for (descriptor, connection) in connections where now >= deadline(of: connection) {
                if connection.awaiting != nil {
                    connection.awaiting = nil
                    connection.output = APIError.response(504, "No answer in time; try again").serialized()
                    continue
                }
                if connection.isReceiving {
                    counters.withLock { $0.timedOut += 1 }
                    refuse(connection, APIError.response(408, "Request timed out"))
                }
                drop(descriptor)
            }
            if connections.isEmpty, acceptedSinceIdle >= limits.busySpell, let whenIdle {
                acceptedSinceIdle = 0
                whenIdle()
            }
        }
        for descriptor in Array(connections.keys) { drop(descriptor) }
    }

    /// poll(2)'s timeout in milliseconds for a deadline in monotonic seconds:
    /// -1 (none) for no deadline, rounded up so the wake comes at or after it.
    static func pollTimeout(until deadline: Double, now: Double) -> Int32 {
        guard deadline.isFinite else { return -1 }
        return Int32(min(max(0, ((deadline - now) * 1000).rounded(.up)), Double(Int32.max)))
    }

    /// When the connection's time is up: its head's or request's deadline,
    /// or the end of its lingering.
    private func deadline(of connection: Connection) -> Double {
        if let until = connection.lingeringUntil { return until }
        if let awaiting = connection.awaiting { return awaiting.since + limits.replyTimeout }
        guard connection.isReceiving else { return .infinity }  // its answer is being written
        return connection.opened + (connection.parser.hasHead ? limits.requestTimeout : limits.headerTimeout)
    }

    private func accept() {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let descriptor = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) }
            }
            guard descriptor >= 0 else { return }
            acceptedSinceIdle += 1
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            let peer = TrustedNetworks.address(address)
            if connections.count >= limits.maximumConnections && !evictOne() {
                counters.withLock { $0.refused += 1 }
                // Over TLS a plain answer would be noise: just close.
                if tls == nil { refuse(descriptor, Self.overCapacity) }
                close(descriptor)
                continue
            }
            let connection = Connection(
                descriptor: descriptor, opened: MonotonicClock.seconds(), limits: limits,
                transport: tls == nil ? .plain : .undecided)
            connection.peer = peer
            connections[descriptor] = connection
        }
    }

    private static let overCapacity = APIError.response(503, "Too many connections; try again")

    /// Makes room: the oldest connection still waiting for its request, from
    /// the address holding the most connections, is answered 503 and closed.
    private func evictOne() -> Bool {
        var perPeer: [[UInt8]: Int] = [:]
        for connection in connections.values where connection.isReceiving {
            perPeer[connection.peer ?? [], default: 0] += 1
        }
        guard let busiest = perPeer.max(by: { $0.value < $1.value })?.key,
            let victim = connections.values.filter({ $0.isReceiving && ($0.peer ?? []) == busiest })
                .min(by: { $0.opened < $1.opened })
        else { return false }
        counters.withLock { $0.evicted += 1 }
        refuse(victim, Self.overCapacity)
        drop(victim.descriptor)
        return true
    }

    /// Writes a short answer if the socket takes it now; never waits.
    private func refuse(_ descriptor: Int32, _ response: HTTPResponse) {
        let bytes = response.serialized()
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    /// A short answer to a connection that can take one now: plain, or
    /// TLS once its handshake is done; nothing otherwise.
    private func refuse(_ connection: Connection, _ response: HTTPResponse) {
        switch connection.transport {
        case .plain: refuse(connection.descriptor, response)
        case .tls(let tls) where tls.isEstablished: _ = try? tls.write(response.serialized())
        default: break
        }
    }

    /// Forgets the connection (its TLS goes with it) and closes its socket.
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
        if connection.awaiting != nil {
            // Hung up or failed while its answer was on the way.
            return drop(descriptor)
        }
        if !connection.output.isEmpty {
            return writeOutput(connection)
        }
        guard let outcome = receive(connection) else { return }
        switch outcome {
        case .incomplete:
            return
        case .invalid(let response):
            connection.output = response.serialized()
        case .complete(var request):
            request.peer = connection.peer
            request.isSecure = connection.tls != nil
            let serial = replySerials.add(1, ordering: .relaxed).newValue
            let reply = HTTPReply(server: self, serial: serial)
            if let response = handler(request, reply) {
                reply.answered()
                connection.output = response.serialized()
                // Over TLS the socket is likely writable now: no need to wait for poll.
                if connection.tls != nil { writeOutput(connection) }
            } else {
                connection.awaiting = (MonotonicClock.seconds(), serial)
            }
        }
    }

    /// Writes what the socket takes of the answer; once all is out, closes
    /// its side (TLS: close_notify first) and lingers.
    private func writeOutput(_ connection: Connection) {
        let descriptor = connection.descriptor
        let count: Int
        if let tls = connection.tls {
            connection.tlsWantsWrite = false
            switch try? tls.write(connection.output, from: connection.written) {
            case .moved(let written): count = written
            case .wait(let wait):
                connection.tlsWantsWrite = wait == .writable
                return
            case .closed, nil: return drop(descriptor)
            }
        } else {
            count = connection.output.withUnsafeBytes {
                send(descriptor, $0.baseAddress! + connection.written, $0.count - connection.written, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { return drop(descriptor) }
        }
        connection.written += count
        if connection.written >= connection.output.count {
            connection.tls?.shutdown()
            shutdown(descriptor, Int32(SHUT_WR))
            connection.lingeringUntil = MonotonicClock.seconds() + limits.lingerSeconds
        }
    }

    /// Reads what came: the parser's verdict, or nil when there is nothing to
    /// decide yet (a TLS handshake under way, OpenSSL waiting) or the
    /// connection was dropped.
    private func receive(_ connection: Connection) -> HTTPRequestParser.Outcome? {
        let descriptor = connection.descriptor
        switch connection.transport {
        case .undecided:
            guard let tls else { return nil }
            // Peeked into the receive buffer, like every other read here: a
            // 1-byte stack variable handed to recv was where AddressSanitizer
            // pointed at in CI's fuzzing (not reproduced here); the buffer
            // keeps the server thread's reads in one place.
            let peeked = receiveBuffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, 1, Int32(MSG_PEEK)) }
            guard peeked == 1 else {
                drop(descriptor)
                return nil
            }
            let first = receiveBuffer[0]
            if first == 0x16, let engine = try? TLSConnection(accepting: descriptor, context: tls.context.tls) {
                connection.transport = .tls(engine)
                return receive(connection)
            }
            connection.transport = .plain
            guard tls.plainAllowed(connection.peer) else {
                connection.output = HTTPResponse(
                    status: 400, body: "This API speaks HTTPS: use \(tls.httpsHint)\n", contentType: "text/plain; charset=utf-8"
                ).serialized()
                return nil
            }
            return receive(connection)
        case .plain:
            let count = receiveBuffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                drop(descriptor)
                return nil
            }
            return receiveBuffer.withUnsafeBytes { connection.parser.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        case .tls(let tls):
            connection.tlsWantsWrite = false
            // A failed handshake or read, or the client's close_notify, ends the connection.
            if case .wait(let wait)? = try? tls.handshake() {
                connection.tlsWantsWrite = wait == .writable
                return nil
            }
            guard tls.isEstablished else {
                drop(descriptor)
                return nil
            }
            // Everything TLS can give now (it may hold more than one read's worth).
            while true {
                switch try? tls.read(into: &receiveBuffer) {
                case .moved(let count):
                    let outcome = receiveBuffer.withUnsafeBytes {
                        connection.parser.append(UnsafeRawBufferPointer(rebasing: $0[0..<count]))
                    }
                    if case .incomplete = outcome { continue }
                    return outcome
                case .wait(let wait):
                    connection.tlsWantsWrite = wait == .writable
                    return nil
                case .closed, nil:
                    drop(descriptor)
                    return nil
                }
            }
        }
    }

    /// An answer given later, from any thread: written by the server thread.
    fileprivate func reply(_ response: HTTPResponse, serial: UInt64) {
        replies.withLock { $0.append((serial, response)) }
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }

    private func deliverReplies() {
        let ready = replies.withLock { list in
            defer { list.removeAll() }
            return list
        }
        guard !ready.isEmpty else { return }
        for (serial, response) in ready {
            // The connection may be gone (hung up, timed out): the answer has no one to go to.
            guard let connection = connections.values.first(where: { $0.awaiting?.serial == serial }) else { continue }
            connection.awaiting = nil
            connection.output = response.serialized()
        }
    }
}

/// Where a deferring handler gives its answer later, once, from any thread
/// (a second answer is ignored). An answer after the reply timeout, or to
/// a client that hung up, goes nowhere.
public final class HTTPReply: Sendable {
    private weak let server: HTTPServer?
    private let serial: UInt64
    private let done = Atomic(false)

    private let sink: (@Sendable (HTTPResponse) -> Void)?

    fileprivate init(server: HTTPServer, serial: UInt64) {
        self.server = server
        self.serial = serial
        sink = nil
    }

    /// A reply for a handler run without a server (tests, `ControlAPI.handle`): answers go to `sink`.
    init(sink: @escaping @Sendable (HTTPResponse) -> Void) {
        server = nil
        serial = 0
        self.sink = sink
    }

    public func send(_ response: HTTPResponse) {
        guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let sink { return sink(response) }
        server?.reply(response, serial: serial)
    }

    /// The handler answered at once.
    fileprivate func answered() { done.store(true, ordering: .releasing) }
}
