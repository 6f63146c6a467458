import CLibWebSockets
import NamedThreads
import PrintBridgeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the link reports, in order, through `events`.
public enum LinkEvent: Sendable {
    /// What a frame's messages mean to the printers (read and matched on the
    /// link's thread by its `HAFrameReader`).
    case printers([PrinterInput])
    /// A result (the snapshot among them) or a frame over 1 MiB was handled:
    /// the memory it took can go back to the system.
    case bulkHandled
    /// Protocol news for logs and metrics.
    case notice(HASession.Notice)
    case connected
    case disconnected(DisconnectCause)
    /// Every frame exactly as received, when the link was made with `tapsFrames`
    /// (for `printbridge record`).
    case received([UInt8])
}

/// Why the connection to Home Assistant ended (or never began).
public enum DisconnectCause: Hashable, Sendable, CustomStringConvertible {
    /// `stop` was called: our own shutdown, news rather than a problem.
    case shuttingDown
    /// No connection was made; libwebsockets' words (a refused port, a TLS
    /// verification failure) when it gave some.
    case connectFailed(String)
    /// The connection was open and closed (HA restarting, the network).
    case closed
    /// The protocol ended it (`HASession`: no pong, authentication rejected, …).
    case protocolEnded(String)
    /// HA sent a message over the limit (HA_MAX_MESSAGE_MB).
    case messageTooLarge(limitMiB: Int)
    /// libwebsockets could not be set up at all.
    case noContext

    public var description: String {
        switch self {
        case .shuttingDown: return "shutting down"
        case .connectFailed(let detail): return detail
        case .closed: return "connection closed"
        case .protocolEnded(let reason): return reason
        case .messageTooLarge(let limit):
            return "a message from Home Assistant is larger than \(limit) MiB (HA_MAX_MESSAGE_MB)"
        case .noContext: return "could not create the libwebsockets context"
        }
    }

    /// A TLS failure while connecting (the certificate, most often).
    public var isTLSFailure: Bool {
        if case .connectFailed(let detail) = self { return detail.contains("SSL") || detail.contains("TLS") }
        return false
    }
}

/// The connection to Home Assistant: a libwebsockets client that stays
/// connected for months, driven by `HASession`.
///
/// One thread owns the lws context and the session. The session's deadlines
/// (ping, pong timeout, reconnect back-off) are libwebsockets timers
/// (`lws_sul_schedule`) on that thread, in monotonic time; other threads
/// only set flags under a lock and call `lws_cancel_service`.
///
/// Back-pressure: `events` holds at most `pauseBacklog` events the consumer
/// has not taken. Beyond that the link stops reading the socket
/// (`lws_rx_flow_control`), so TCP pushes back on Home Assistant (which
/// closes a connection whose client stays far behind: websocket_api/const.py,
/// over MAX_PENDING_MSG 4,096 pending or PENDING_MSG_PEAK 1,024 for 5 s)
/// instead of the agent's memory growing; it reads again once the consumer
/// is down to `resumeBacklog`.
public final class HomeAssistantLink: @unchecked Sendable {
    // @unchecked Sendable: `context`, `wsi`, `session`, the buffers and the
    // connect strings are used only on the service thread; `control` is
    // behind a Mutex; the rest is immutable.
    public let endpoint: HAEndpoint
    private let stream: AsyncStream<LinkEvent>
    private let continuation: AsyncStream<LinkEvent>.Continuation

    /// What the link reports, in order. One consumer.
    public var events: LinkEvents { LinkEvents(link: self, stream: stream) }

    /// Events waiting for the consumer at which reading stops, and at which it resumes.
    public static let pauseBacklog = 1024
    public static let resumeBacklog = 256

    private var session: HASession
    private var context: OpaquePointer?
    private var wsi: OpaquePointer?
    private var outgoing: [[UInt8]] = []
    private var incoming: [UInt8] = []
    private var closeRequested = false
    /// The WebSocket handshake completed on the current connection.
    private var isEstablished = false
    private var lastDisconnectCause = DisconnectCause.closed
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let cStrings: [UnsafeMutablePointer<CChar>]
    private let control = Mutex(Control())
    private var serviceThread: NamedThread?
    /// Monotonic: the session's intervals.
    private let clock: any EpochClock
    /// The session's next deadline (a libwebsockets timer).
    private var sessionTimer: LinkTimer!
    private var scheduledDeadline: EpochTime?
    private let backlog = Mutex(Backlog())
    private let tapsFrames: Bool
    /// The one frame path: splits frames into messages, drops household
    /// events before they cost a parse, a copy or a task hop, and matches
    /// printer entities with the registry seen on this connection.
    private var reader: HAFrameReader
    /// The largest message accepted; a bigger one closes the connection.
    private let maximumMessageBytes: Int
    /// Events received (dropped or passed on) and when the last came; for metrics.
    private let eventFrames = Mutex((count: 0, last: 0.0))
    /// Printer entity updates matched so far; for metrics.
    private let matched = Mutex(0)

    /// Events received so far and the wall time of the last one (seconds
    /// since 1970; 0: none yet). Safe from any thread.
    public var eventStatistics: (count: Int, last: Double) { eventFrames.withLock { $0 } }

    /// Printer entity updates (events and snapshot entries) read so far. Safe from any thread.
    public var matchedUpdates: Int { matched.withLock { $0 } }

    private struct Control {
        var stopping = false
    }

    private struct Backlog {
        /// Events yielded and not yet taken by the consumer.
        var queued = 0
        /// Reading is stopped (`lws_rx_flow_control`).
        var paused = false
        /// The consumer caught up: the link's thread should read again.
        var resumeAsked = false
    }

    /// Whether the link has stopped reading because the consumer is behind. Safe from any thread.
    public var isReceivePaused: Bool { backlog.withLock { $0.paused } }

    /// - Parameters:
    ///   - caFile: extra CA bundle for a self-signed HA certificate (wss);
    ///     otherwise the system's CA store verifies it.
    public init(
        endpoint: HAEndpoint, accessToken: String, caFile: String? = nil,
        configuration: HASession.Configuration = .init(), clock: any EpochClock = MonotonicClock(),
        tapsFrames: Bool = false, reader: HAFrameReader = HAFrameReader(), maximumMessageBytes: Int = 64 << 20
    ) {
        self.maximumMessageBytes = maximumMessageBytes
        self.endpoint = endpoint
        self.clock = clock
        self.tapsFrames = tapsFrames
        self.reader = reader
        // The session subscribes to the bus events of the integrations the reader knows.
        session = HASession(
            accessToken: accessToken, configuration: configuration, busEventTypes: reader.matcher.busEventTypes)
        // Unbounded as a type; bounded by `pauseBacklog` through flow control.
        (stream, continuation) = AsyncStream.makeStream(of: LinkEvent.self, bufferingPolicy: .unbounded)
        let name = strdup("printbridge-ha")!
        var strings = [name, strdup(endpoint.host)!, strdup(endpoint.path)!]
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(name)
        protocols[0].callback = linkCallback
        protocols[0].rx_buffer_size = 65536
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(protocols)
        // TLS (and the CA store it loads: ~370 KB and 30,000 allocations) only
        // for wss://; a plain ws:// connection, as to the add-on's supervisor
        // or HA on the same host, does without.
        info.options = endpoint.secure ? UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) : 0
        info.gid = -1  // do not change user or group
        info.uid = -1
        // Left at 0, libwebsockets sizes two zero-filled tables by the process
        // file limit: 16 bytes per possible descriptor, 16 MB resident under
        // Docker's default limit of 1,048,576. This context holds one
        // connection and its wake-up pipe; a small table costs nothing.
        info.fd_limit_per_thread = 16
        // libwebsockets reads at most this much per wake-up (4 KB by
        // default). A busy HA's burst of a hundred household events is ~35 KB:
        // read in one go, it costs one pass through the loop below and one
        // coalescing pause instead of nine (2,000 events/s: ~575 -> ~200
        // context switches/s, about a quarter less CPU).
        info.pt_serv_buf_size = 32 * 1024
        if let caFile {
            let copy = strdup(caFile)!
            strings.append(copy)
            info.client_ssl_ca_filepath = UnsafePointer(copy)
        }
        cStrings = strings
        lws_set_log_level(getenv("PRINTBRIDGE_LWS_LOG") != nil ? 0x7F : LLL_ERR, nil)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        context = lws_create_context(&info)
        sessionTimer = LinkTimer(owner: self)
    }

    deinit {
        if let context { lws_context_destroy(context) }
        protocols.deallocate()
        for string in cStrings { free(string) }
    }

    /// Starts connecting (and reconnecting) until `stop`; throws when its
    /// thread cannot be started.
    public func start() throws(NamedThread.StartError) {
        guard context != nil else {
            yield(.disconnected(.noContext))
            continuation.finish()
            return
        }
        // The thread holds the link until it ends (`stop`).
        serviceThread = try NamedThread("pb-ha-link") { [self] in serve() }
    }

    /// Closes the connection and ends `events`. Safe from any thread.
    public func stop() {
        let already = control.withLock { state -> Bool in
            defer { state.stopping = true }
            return state.stopping
        }
        guard !already, let context else { return }
        lws_cancel_service(context)
        serviceThread?.join()
    }

    private var stopping: Bool { control.withLock { $0.stopping } }

    // MARK: - Service thread

    private func serve() {
        run(session.start(at: clock.now()))
        // lws_service sleeps until a socket is ready, a timer is due or
        // another thread cancels the wait.
        while !stopping { lws_service(context, 0) }
        lws_sul_cancel(sessionTimer.list)
        if wsi != nil, !isEstablished {
            // Still connecting: nothing to close politely; drop it now
            // rather than wait for the handshake's timeout.
            lastDisconnectCause = .shuttingDown
            closeRequested = true
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC)
            wsi = nil
        }
        if wsi != nil {
            closeRequested = true
            lastDisconnectCause = .shuttingDown
            lws_callback_on_writable(wsi)
            for _ in 0..<10 where wsi != nil { lws_service(context, 0) }
        }
        continuation.finish()
    }

    /// Another thread cancelled the wait: stopping, or the consumer caught up.
    fileprivate func wokenUp() {
        guard !stopping else { return }
        let resume = backlog.withLock { state -> Bool in
            guard state.resumeAsked else { return false }
            state.resumeAsked = false
            state.paused = false
            return true
        }
        if resume, let wsi { lws_rx_flow_control(wsi, 1) }
    }

    /// The session's timer came due (on the link's thread).
    fileprivate func timerFired() {
        guard !stopping else { return }
        scheduledDeadline = nil
        run(session.tick(at: clock.now()))
    }

    /// Sets the session's timer to its next deadline (unchanged: left alone).
    private func scheduleSessionDeadline() {
        let deadline = session.nextDeadline
        guard deadline != scheduledDeadline else { return }
        scheduledDeadline = deadline
        guard let deadline else {
            lws_sul_cancel(sessionTimer.list)
            return
        }
        let delay = max(0, deadline - clock.now())
        lws_sul_schedule(context, 0, sessionTimer.list, linkTimerCallback, lws_usec_t(delay * 1_000_000))
    }

    /// Hands an event to the consumer; stops reading when it is too far behind.
    private func yield(_ event: LinkEvent) {
        continuation.yield(event)
        let pause = backlog.withLock { state -> Bool in
            state.queued += 1
            guard !state.paused, state.queued >= Self.pauseBacklog else { return false }
            state.paused = true
            return true
        }
        if pause, let wsi { lws_rx_flow_control(wsi, 0) }
    }

    /// The consumer took an event (any thread).
    fileprivate func consumed() {
        let resume = backlog.withLock { state -> Bool in
            state.queued -= 1
            guard state.paused, !state.resumeAsked, state.queued <= Self.resumeBacklog else { return false }
            state.resumeAsked = true
            return true
        }
        if resume, let context { lws_cancel_service(context) }
    }

    private func publishNotices() {
        for notice in session.takeNotices() { yield(.notice(notice)) }
    }

    private func run(_ commands: [HASession.Command]) {
        for command in commands {
            switch command {
            case .connect:
                connect()
            case .send(let text):
                guard wsi != nil else { continue }
                outgoing.append(Array(text.utf8))
                lws_callback_on_writable(wsi)
            case .close(let reason):
                close(because: .protocolEnded(reason))
            }
        }
        publishNotices()
        scheduleSessionDeadline()
    }

    /// Closes the connection politely; `cause` is what the consumer is told.
    private func close(because cause: DisconnectCause) {
        lastDisconnectCause = cause
        closeRequested = true
        if wsi != nil { lws_callback_on_writable(wsi) }
    }

    private func connect() {
        var info = lws_client_connect_info()
        info.context = context
        info.address = UnsafePointer(cStrings[1])
        info.host = UnsafePointer(cStrings[1])
        info.origin = UnsafePointer(cStrings[1])
        info.path = UnsafePointer(cStrings[2])
        info.port = Int32(endpoint.port)
        info.ssl_connection = endpoint.secure ? Int32(LCCSCF_USE_SSL.rawValue) : 0
        info.ietf_version_or_minus_one = -1
        info.local_protocol_name = UnsafePointer(cStrings[0])
        closeRequested = false
        outgoing.removeAll()
        incoming.removeAll()
        lastDisconnectCause = .connectFailed("connection failed")
        // No `pwsi`: libwebsockets would keep that address and write through
        // it when a connection in its handshake is dropped, long after a
        // `withUnsafeMutablePointer` scope has ended (a crash, seen when a
        // silent server's handshake was timed out). The callbacks say when
        // the connection goes (`disconnected` clears `wsi`).
        wsi = lws_client_connect_via_info(&info)
        if wsi == nil { disconnected(.connectFailed("cannot connect to \(endpoint)")) }
    }

    fileprivate func established(_ connection: OpaquePointer?) {
        wsi = connection
        isEstablished = true
        // A consumer still behind from the last connection: read nothing yet.
        if backlog.withLock({ $0.paused }) { lws_rx_flow_control(connection, 0) }
        yield(.connected)
        run(session.connected(at: clock.now()))
    }

    fileprivate func disconnected(_ cause: DisconnectCause) {
        wsi = nil
        isEstablished = false
        outgoing.removeAll()
        incoming.removeAll()
        yield(.disconnected(cause))
        guard !stopping else { return }
        run(session.disconnected(at: clock.now(), random: Double.random(in: 0...1)))
    }

    fileprivate func received(_ bytes: UnsafeRawBufferPointer, final: Bool) {
        guard !closeRequested else { return }
        if final && incoming.isEmpty {
            // The common case, a whole frame in one piece: looked at where lws
            // put it, and copied only if it is kept (most are household
            // events, dropped here).
            handle(frame: bytes, kept: nil)
            return
        }
        incoming.append(contentsOf: bytes)
        if incoming.count > maximumMessageBytes {
            incoming.removeAll()
            close(because: .messageTooLarge(limitMiB: maximumMessageBytes >> 20))
            return
        }
        guard final else { return }
        let frame = incoming
        incoming = []  // the frame takes the buffer; no new one of its capacity
        frame.withUnsafeBytes { handle(frame: $0, kept: frame) }
    }

    /// One whole frame; `kept` is the same bytes as an array when there is one.
    /// Every message of it goes to the session, in order, and what it means
    /// to the printers to the consumer.
    private func handle(frame bytes: UnsafeRawBufferPointer, kept: [UInt8]?) {
        let now = clock.now()
        if tapsFrames { yield(.received(kept ?? Array(bytes))) }
        let messages: [HAMessage]?
        do throws(HAMessageError) {
            messages = try reader.messages(in: bytes)
        } catch {
            yield(.notice(.requestFailed(id: -1, code: "bad_message", message: "\(error)")))
            return
        }
        let bulk = bytes.count >= 1 << 20
        guard let messages else {
            session.receivedUnparsedEvent(at: now)
            countEvents(1)
            if bulk { yield(.bulkHandled) }
            return
        }
        var inputs: [PrinterInput] = []
        var events = 0
        var results = false
        for message in messages {
            run(session.received(message, at: now))
            switch message {
            case .event: events += 1
            case .result: results = true
            default: break
            }
            inputs += reader.inputs(from: message)
        }
        if events > 0 { countEvents(events) }
        let updates = reader.statistics.matchedUpdates
        matched.withLock { $0 = updates }
        if !inputs.isEmpty { yield(.printers(inputs)) }
        if results || bulk { yield(.bulkHandled) }
    }

    /// The time of the last event is wall time: a person reads it (metrics, status page).
    private func countEvents(_ count: Int) {
        let now = SystemClock().now()
        eventFrames.withLock { $0 = ($0.count + count, now.seconds) }
    }

    /// Writes one queued frame; returns false to close the connection.
    fileprivate func writable(_ connection: OpaquePointer?) -> Bool {
        if closeRequested { return false }
        guard !outgoing.isEmpty else { return true }
        let text = outgoing.removeFirst()
        let pre = pb_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre + text.count)
        buffer.replaceSubrange(pre..<(pre + text.count), with: text)
        let written = buffer.withUnsafeMutableBufferPointer { pointer in
            lws_write(connection, pointer.baseAddress! + pre, text.count, LWS_WRITE_TEXT)
        }
        guard written >= text.count else { return false }
        if !outgoing.isEmpty { lws_callback_on_writable(connection) }
        return true
    }

    fileprivate func closed() {
        disconnected(closeRequested ? lastDisconnectCause : .closed)
    }
}

/// libwebsockets' protocol callback: finds the link through the context's
/// user pointer (the link outlives its context) and hands the event over.
private func linkCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let pointer = lws_context_user(context) else { return 0 }
    let link = Unmanaged<HomeAssistantLink>.fromOpaque(pointer).takeUnretainedValue()
    switch reason {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        link.established(wsi)
    case LWS_CALLBACK_CLIENT_RECEIVE:
        let final = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
        link.received(UnsafeRawBufferPointer(start: input, count: length), final: final)
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return link.writable(wsi) ? 0 : -1
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        let detail = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
        link.disconnected(.connectFailed(detail))
    case LWS_CALLBACK_CLIENT_CLOSED:
        link.closed()
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        link.wokenUp()
    default:
        break
    }
    return 0
}

/// The link's events as the consumer takes them: each one taken is counted,
/// so the link knows when to stop and resume reading.
public struct LinkEvents: AsyncSequence, Sendable {
    public typealias Element = LinkEvent
    let link: HomeAssistantLink
    let stream: AsyncStream<LinkEvent>

    public struct AsyncIterator: AsyncIteratorProtocol {
        let link: HomeAssistantLink
        var base: AsyncStream<LinkEvent>.AsyncIterator

        public mutating func next() async -> LinkEvent? {
            guard let event = await base.next() else { return nil }
            link.consumed()
            return event
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(link: link, base: stream.makeAsyncIterator())
    }
}

/// A libwebsockets timer (`lws_sorted_usec_list_t`) with, right after it in
/// the same allocation, the link it belongs to: the callback is given only
/// the timer's address.
final class LinkTimer {

    let list: UnsafeMutablePointer<lws_sorted_usec_list_t>
    private static let ownerOffset = MemoryLayout<lws_sorted_usec_list_t>.stride

    init(owner: HomeAssistantLink) {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: Self.ownerOffset + 8, alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: Self.ownerOffset + 8)
        // Unretained: the link owns its timers and cancels them before it goes.
        memory.storeBytes(of: Unmanaged.passUnretained(owner).toOpaque(), toByteOffset: Self.ownerOffset, as: UnsafeMutableRawPointer.self)
        list = memory.bindMemory(to: lws_sorted_usec_list_t.self, capacity: 1)
    }

    deinit { UnsafeMutableRawPointer(list).deallocate() }

    static func fired(_ list: UnsafeMutablePointer<lws_sorted_usec_list_t>) {
        let memory = UnsafeRawPointer(list)
        let owner = memory.load(fromByteOffset: ownerOffset, as: UnsafeMutableRawPointer.self)
        Unmanaged<HomeAssistantLink>.fromOpaque(owner).takeUnretainedValue().timerFired()
    }
}

private func linkTimerCallback(_ list: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    if let list { LinkTimer.fired(list) }
}
