import PrintBridgeCore
import TLSEngine

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/2 connection over TLS, from the name lookup to the close, as
/// `HTTP2Client`'s loop thread drives it (`pollEvents`, `handle`,
/// `checkTimers`); never touched from another thread. It owns no C handle
/// itself: it puts the parts together and moves bytes between them.
///
/// - the host's addresses: `AddressLookup`, beside the loop (a numeric host
///   needs none);
/// - `TCPConnection`: the addresses tried in turn; owns the socket;
/// - `TLSConnection` (TLSEngine): the handshake and encrypted bytes; owns the `SSL`;
/// - `HTTP2Session`: streams, answers and the refusal rules; owns the nghttp2 session;
/// - `HTTP2Liveness`: connect timeout, PING, stall, request timeouts, as a value.
final class HTTP2Connection {
    enum State { case resolving, connecting, handshaking, open, closed }

    struct Limits {
        var liveness: HTTP2Liveness.Limits
        /// Streams this side keeps open at once (fewer if the server says so).
        var maximumStreams: Int
    }

    private(set) var state = State.resolving
    /// Why it closed (nil while open, or when it closed cleanly after a GOAWAY).
    private(set) var closeError: HTTP2TransportError?
    /// Streams were sent and nothing came back for the stall timeout.
    private(set) var stalledStreams = 0
    /// Whether the TLS handshake completed and HTTP/2 started.
    private(set) var wasOpen = false

    let origin: HTTPOrigin
    private let context: TLSContext
    private let lookup: AddressLookup
    private let maximumStreams: Int
    // The parts, and the byte pump's state (HTTP2Connection+IO.swift moves bytes with them).
    var liveness: HTTP2Liveness
    /// The socket; it outlives `tls`, which runs over it (`release`).
    private(set) var socket: TCPConnection?
    private(set) var tls: TLSConnection?
    private(set) var session: HTTP2Session?
    private var handshakeWantsWrite = false
    /// Bytes from nghttp2 waiting to go through TLS, sent up to `outgoingSent`.
    var outgoing: [UInt8] = []
    var outgoingSent = 0
    /// The socket took less than was written: wait for it to be writable.
    var writeBlocked = false
    /// What TLS reads, handed to the session.
    var receiving = [UInt8](repeating: 0, count: 65536)

    init(origin: HTTPOrigin, tls context: TLSContext, lookup: AddressLookup, limits: Limits, now: EpochTime) {
        self.origin = origin
        self.context = context
        self.lookup = lookup
        maximumStreams = limits.maximumStreams
        liveness = HTTP2Liveness(limits: limits.liveness, startingAt: now)
        if let address = SocketAddress(numericHost: origin.host, port: origin.port) {
            connect(to: [address])
        } else {
            lookup.request()
        }
    }

    deinit { release() }

    /// Streams in flight (sent or about to be).
    var activeStreams: Int { session?.openStreams ?? 0 }

    /// Whether a new request can be submitted now.
    var canOpenStream: Bool { state == .open && session?.canOpenStream == true }

    /// The socket and the events to wait for; nil while the name is looked
    /// up (the lookup wakes the loop) and once closed.
    var pollEvents: (descriptor: Int32, events: Int16)? {
        guard let socket else { return nil }
        switch state {
        case .connecting: return (socket.descriptor, Int16(POLLOUT))
        case .handshaking: return (socket.descriptor, Int16(handshakeWantsWrite ? POLLOUT : POLLIN))
        case .open: return (socket.descriptor, Int16(POLLIN) | (writeBlocked ? Int16(POLLOUT) : 0))
        case .resolving, .closed: return nil
        }
    }

    /// Hands over the requests to send again on a new connection.
    func takeRefused() -> [HTTP2Exchange] { session?.takeRefused() ?? [] }

    /// Connects once the name lookup has answered (the loop asks every turn).
    func continueLookup() {
        guard state == .resolving, let answer = lookup.take() else { return }
        switch answer {
        case .success(let addresses): connect(to: addresses)
        case .failure(let error): close(error)
        }
    }

    /// Queues one request on the session (`canOpenStream` must be true).
    func submit(_ exchange: HTTP2Exchange, now: EpochTime) {
        session?.submit(exchange, now: now)
    }

    // MARK: - Connecting

    private func connect(to addresses: [SocketAddress]) {
        let socket = TCPConnection(addresses: addresses, host: origin.host, authority: origin.authority)
        self.socket = socket
        state = .connecting
        connectProgressed(socket)
    }

    func connectProgressed(_ socket: TCPConnection) {
        switch socket.progress {
        case .connecting: break
        case .connected: beginHandshake(socket)
        case .failed(let error): close(error)
        }
    }

    private func beginHandshake(_ socket: TCPConnection) {
        do {
            tls = try TLSConnection(connecting: socket.descriptor, to: origin.host, context: context)
        } catch {
            close(HTTP2TransportError(.tls, error.description))
            return
        }
        state = .handshaking
        continueHandshake()
    }

    /// One step of the handshake; once done, HTTP/2 must have been agreed (ALPN h2).
    func continueHandshake() {
        guard let tls else { return }
        do {
            switch try tls.handshake() {
            case .wait(let wait): handshakeWantsWrite = wait == .writable
            case .done:
                guard tls.negotiatedProtocol == "h2" else {
                    return close(HTTP2TransportError(.tls, "\(origin.authority) did not agree to HTTP/2 (ALPN h2)"))
                }
                startSession()
            }
        } catch {
            close(HTTP2TransportError(.tls, "TLS handshake with \(origin.authority) failed: \(error.description)"))
        }
    }

    private func startSession() {
        do {
            session = try HTTP2Session(authority: origin.authority, maximumStreams: maximumStreams)
        } catch {
            close(error)
            return
        }
        state = .open
        wasOpen = true
        liveness.opened()
        flush()
    }

    // MARK: - Time

    /// Carries out what liveness decides now (the connect timeout, a PING,
    /// a stall, requests past their timeout). Returns when it next needs to
    /// run (nil: not until something happens).
    func checkTimers(now: EpochTime) -> EpochTime? {
        let decision: HTTP2Liveness.Decision
        switch state {
        case .closed: return nil
        case .resolving, .connecting, .handshaking: decision = liveness.check(at: now, requests: EmptyCollection())
        case .open:
            guard let session else { return nil }
            decision = liveness.check(at: now, open: session.openStreams, requests: session.requests)
        }
        if let end = decision.end {
            switch end {
            case .connectTimedOut:
                close(HTTP2TransportError(
                    .connect, "no connection to \(origin.authority) within \(Int(liveness.limits.connectTimeout)) s"))
            case .stalled(let requests, let quiet):
                stalledStreams = requests
                close(HTTP2TransportError(.stalled, "nothing from \(origin.authority) for \(Int(quiet)) s with requests waiting"))
            }
            return nil
        }
        guard let session, decision.ping || !decision.timedOut.isEmpty else { return decision.next }
        if decision.ping { session.ping() }
        for id in decision.timedOut {
            session.cancel(id, failing: HTTP2TransportError(
                .timeout, "no answer from \(origin.authority) within \(Int(liveness.limits.requestTimeout)) s"))
        }
        flush()
        return decision.next
    }

    // MARK: - Closing

    /// Closes the connection: requests never processed go to `refused`, the
    /// others fail with `error` (or "closed" when there is none).
    func close(_ error: HTTP2TransportError?) {
        guard state != .closed else { return }
        if state == .resolving { lookup.cancel() }
        state = .closed
        closeError = error
        session?.close(failing: error ?? HTTP2TransportError(.connectionLost, "\(origin.authority) closed the connection"))
        release()
    }

    /// Fails every request still open with `error` (the client is stopping).
    func abandon(_ error: HTTP2TransportError) {
        if state == .resolving { lookup.cancel() }
        session?.abandon(failing: error)
        // The GOAWAY that `abandon` queued goes out if it can.
        if state == .open { flush() }
        state = .closed
        release()
    }

    /// Frees the session, then the TLS over the socket, then the socket.
    private func release() {
        session?.release()
        tls = nil
        socket?.close()
        socket = nil
    }
}
