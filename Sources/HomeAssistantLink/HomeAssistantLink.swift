import CLibWebSockets
import COpenSSL
import NamedThreads
import PrintBridgeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The connection to Home Assistant: a libwebsockets client that stays
/// connected for months, driven by `HASession`.
///
/// One thread owns the lws context and the session. The session's deadlines
/// (ping, pong timeout, reconnect back-off) are libwebsockets timers
/// (`lws_sul_schedule`) on that thread, in monotonic time; other threads
/// only set flags under a lock and call `lws_cancel_service`.
///
/// Back-pressure (`BackPressure`): when the consumer falls behind, the link
/// stops reading the socket (`lws_rx_flow_control`) instead of the agent's
/// memory growing, and reads again once it has caught up.
public final class HomeAssistantLink: @unchecked Sendable {
    // @unchecked Sendable: `lws`, `wsi`, `session` and the buffers are used
    // only on the service thread (but `lws.cancelService`, which
    // libwebsockets allows from any thread); `control` and `backlog` are
    // behind Mutexes; the rest is immutable.
    public let endpoint: HAEndpoint
    private let stream: AsyncStream<LinkEvent>
    private let continuation: AsyncStream<LinkEvent>.Continuation

    /// What the link reports, in order. One consumer.
    public var events: LinkEvents { LinkEvents(link: self, stream: stream) }

    /// Events waiting for the consumer at which reading stops, and at which it resumes (`BackPressure`).
    public static let pauseBacklog = BackPressure.pauseAt
    public static let resumeBacklog = BackPressure.resumeAt

    /// The most one read takes from the socket: libwebsockets' per-thread
    /// buffer at its default size (`pt_serv_buf_size` left at 0:
    /// LWS_MAX_SOCKET_IO_BUF), resident from the start. LinkContext says why
    /// the default.
    public static let readBufferBytes = 4096

    private var session: HASession
    /// The libwebsockets context and what it needs (set last in `init`: it
    /// is given this link's address).
    private var lws: LinkContext!
    private var wsi: OpaquePointer?
    private var outgoing: [[UInt8]] = []
    /// A message's pieces as libwebsockets hands them over (a fragment, or
    /// a frame larger than the protocol's rx buffer), until its last.
    private var incoming: [UInt8] = []
    private var closeRequested = false
    /// The WebSocket handshake completed on the current connection.
    private var isEstablished = false
    private var lastDisconnectCause = DisconnectCause.closed
    private let control = Mutex(Control())
    private var serviceThread: NamedThread?
    /// Monotonic: the session's intervals and the GETs' deadlines.
    let clock: any EpochClock
    /// The session's next deadline (a libwebsockets timer).
    private var sessionTimer: LinkTimer!
    private var scheduledDeadline: EpochTime?
    private let backlog = Mutex(BackPressure())
    private let tapsFrames: Bool
    /// The one frame path: splits frames into messages and matches printer
    /// entities with the registry seen on this connection.
    private var reader: HAFrameReader
    /// The largest message accepted; a bigger one closes the connection.
    private let maximumMessageBytes: Int
    /// The extra CA bundle given for wss://, for the start error.
    private let caFile: String?
    /// Events received (dropped or passed on) and when the last came; for metrics.
    private let eventFrames = Mutex((count: 0, last: 0.0))
    /// Printer entity updates matched so far; for metrics.
    private let matched = Mutex(0)
    /// The printers' button entities, as the registry and the last snapshot showed them.
    private let buttons = Mutex(PrinterButtons())

    /// The button entity that does `action` for printer `prefix` in HA, if
    /// any was seen (registry or snapshot). Safe from any thread.
    public func button(_ action: PrinterAction, printer prefix: String) -> String? {
        buttons.withLock { $0[prefix]?[action] }
    }

    /// The printers' camera and image entities, best first (settings file, registry, snapshot).
    private let cameras = Mutex(PrinterCameras())
    /// The matcher's `camerasVersion` last copied into `cameras` (the link thread's).
    private var publishedCameras = -1

    /// The camera and image entities that picture printer `prefix`, best
    /// first, as last seen (settings file, registry, snapshot). Safe from any thread.
    public func cameras(printer prefix: String) -> [String] {
        cameras.withLock { $0[prefix] ?? [] }
    }

    /// Events received so far and the wall time of the last one (seconds
    /// since 1970; 0: none yet). Safe from any thread.
    public var eventStatistics: (count: Int, last: Double) { eventFrames.withLock { $0 } }

    /// Printer entity updates (events and snapshot entries) read so far. Safe from any thread.
    public var matchedUpdates: Int { matched.withLock { $0 } }

    private struct Control {
        var stopping = false
        /// Service calls asked for by other threads, for the link's thread to send.
        var calls: [ServiceCall] = []
        /// HTTP GETs asked for by other threads, for the link's thread to start.
        var fetches: [LinkFetch] = []
        var lastFetchID = 0
    }

    public typealias ServiceCallCompletion = @Sendable (HASession.ServiceCallOutcome) -> Void

    private struct ServiceCall {
        var domain: String
        var service: String
        var entityID: String
        var completion: ServiceCallCompletion
    }

    /// Service calls sent, by request id, until HA answers (link thread only).
    private var waitingCalls: [Int: ServiceCallCompletion] = [:]
    /// HTTP GETs started, by id, until answered (link thread only).
    private var runningFetches: [Int: LinkFetch] = [:]
    /// The HA token, for the GETs' `Authorization` header. Never logged.
    let accessToken: String

    /// GETs `path` (e.g. `/api/camera_proxy/camera.x`) from Home Assistant's
    /// host with the link's token; `completion` runs once, on the link's
    /// thread, with what came back within `timeout` seconds: at most
    /// `maximumBytes` of the body (a longer one is cut off there and the
    /// connection closed). Safe from any thread.
    public func fetch(
        _ path: String, maximumBytes: Int, timeout: Double,
        completion: @escaping @Sendable (HTTPFetchResult) -> Void
    ) {
        let deadline = clock.now() + timeout
        let fetch = control.withLock { state -> LinkFetch? in
            guard !state.stopping else { return nil }
            state.lastFetchID += 1
            let fetch = LinkFetch(
                id: state.lastFetchID, path: path, maximumBytes: maximumBytes, deadline: deadline, completion: completion)
            state.fetches.append(fetch)
            return fetch
        }
        guard fetch != nil else { return completion(.notRunning) }
        lws.cancelService()
    }

    /// `fetch` for async callers.
    public func fetch(_ path: String, maximumBytes: Int, timeout: Double) async -> HTTPFetchResult {
        await withCheckedContinuation { continuation in
            fetch(path, maximumBytes: maximumBytes, timeout: timeout) { continuation.resume(returning: $0) }
        }
    }

    /// A running GET by id (link thread).
    func fetch(_ id: Int) -> LinkFetch? { runningFetches[id] }

    /// A GET's answer (or its failure): handed over once, and forgotten (link thread).
    func fetchEnded(_ fetch: LinkFetch, _ result: HTTPFetchResult) {
        guard runningFetches.removeValue(forKey: fetch.id) != nil else { return }
        fetch.finish(result)
        scheduleSessionDeadline()
    }

    /// Starts the GETs other threads asked for (link thread).
    private func startFetches() {
        let fetches = control.withLock { state in
            defer { state.fetches.removeAll() }
            return state.fetches
        }
        for fetch in fetches {
            runningFetches[fetch.id] = fetch
            // The connection's callbacks may answer it before this returns.
            let connection = lws.connect(fetch)
            if connection == nil, runningFetches[fetch.id] != nil {
                fetchEnded(fetch, .failed("cannot connect to \(endpoint)"))
            }
            fetch.wsi = connection
        }
        scheduleSessionDeadline()
    }

    /// GETs past their deadline: answered as timed out, their connections dropped.
    private func expireFetches(at now: EpochTime) {
        for fetch in runningFetches.values.sorted(by: { $0.id < $1.id }) where fetch.deadline <= now {
            runningFetches[fetch.id] = nil
            if let wsi = fetch.wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC) }
            fetch.finish(.timedOut)
        }
    }

    /// Asks HA to run `domain.service` on `entityID` (a button press:
    /// `button.press`); `completion` runs once, on the link's thread, with
    /// HA's answer, or at once when the link is not live. Safe from any thread.
    public func callService(
        domain: String, service: String, entityID: String, completion: @escaping ServiceCallCompletion
    ) {
        let accepted = control.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.calls.append(ServiceCall(domain: domain, service: service, entityID: entityID, completion: completion))
            return true
        }
        guard accepted else { return completion(.notConnected) }
        lws.cancelService()
    }

    /// `callService` for async callers.
    public func callService(domain: String, service: String, entityID: String) async -> HASession.ServiceCallOutcome {
        await withCheckedContinuation { continuation in
            callService(domain: domain, service: service, entityID: entityID) { continuation.resume(returning: $0) }
        }
    }

    /// Whether the link has stopped reading because the consumer is behind. Safe from any thread.
    public var isReceivePaused: Bool { backlog.withLock { $0.paused } }

    /// Events handed to the consumer and not yet taken. Safe from any thread.
    public var queuedEvents: Int { backlog.withLock { $0.queued } }

    /// - Parameters:
    ///   - caFile: extra CA bundle for a self-signed HA certificate (wss);
    ///     otherwise the system's CA store verifies it.
    public init(
        endpoint: HAEndpoint, accessToken: String, caFile: String? = nil,
        configuration: HASession.Configuration = .init(), clock: any EpochClock = MonotonicClock(),
        tapsFrames: Bool = false, reader: HAFrameReader = HAFrameReader(), maximumMessageBytes: Int = 64 << 20
    ) {
        self.maximumMessageBytes = maximumMessageBytes
        self.accessToken = accessToken
        self.caFile = caFile
        self.endpoint = endpoint
        self.clock = clock
        self.tapsFrames = tapsFrames
        self.reader = reader
        // The session subscribes to the bus events of the integrations the reader knows.
        session = HASession(
            accessToken: accessToken, configuration: configuration, busEventTypes: reader.matcher.busEventTypes)
        // Unbounded as a type; bounded by `pauseBacklog` through flow control.
        (stream, continuation) = AsyncStream.makeStream(of: LinkEvent.self, bufferingPolicy: .unbounded)
        lws = LinkContext(endpoint: endpoint, caFile: caFile, owner: Unmanaged.passUnretained(self).toOpaque())
        sessionTimer = LinkTimer(owner: self)
        // The settings file's cameras hold before HA says anything.
        let mapped = reader.matcher.cameras
        cameras.withLock { $0 = mapped }
    }

    deinit {
        // The context goes first: a timer it may still list is freed after.
        lws = nil
    }


    /// Why the link could not start.
    public enum StartError: Error, CustomStringConvertible {
        /// libwebsockets could not be set up (for wss://, its TLS: the CA file).
        case context(caFile: String?)
        /// The CA file for wss:// holds no certificate OpenSSL can load
        /// (libwebsockets would only log it, and every connection would fail).
        case caFile(path: String, reason: String)
        /// The link's thread could not be started.
        case thread(NamedThread.StartError)

        public var description: String {
            switch self {
            case .context(let caFile):
                return "libwebsockets could not set up the connection to Home Assistant"
                    + (caFile.map { " (HA_CA_FILE \($0): is it a PEM certificate?)" } ?? "")
            case .caFile(let path, let reason):
                return "HA_CA_FILE \(path) holds no certificate to trust Home Assistant's with (\(reason))"
            case .thread(let error): return "\(error)"
            }
        }
    }

    /// Starts connecting (and reconnecting) until `stop`; throws when it cannot.
    public func start() throws(StartError) {
        if endpoint.secure, let caFile, let reason = Self.unloadable(caFile) {
            continuation.finish()
            throw .caFile(path: caFile, reason: reason)
        }
        guard lws.context != nil else {
            continuation.finish()
            throw .context(caFile: caFile)
        }
        // The thread holds the link until it ends (`stop`).
        do { serviceThread = try NamedThread("pb-ha-link") { [self] in serve() } } catch { throw .thread(error) }
    }

    /// Why OpenSSL cannot load `path` as trusted certificates, as
    /// libwebsockets will try to (`SSL_CTX_load_verify_locations`; it would
    /// only log the failure), or nil.
    static func unloadable(_ path: String) -> String? {
        guard let context = SSL_CTX_new(TLS_client_method()) else { return "OpenSSL could not be set up" }
        defer { SSL_CTX_free(context) }
        ERR_clear_error()
        guard SSL_CTX_load_verify_locations(context, path, nil) != 1 else { return nil }
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "not a PEM certificate" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Closes the connection and ends `events`. Safe from any thread.
    public func stop() {
        let already = control.withLock { state -> Bool in
            defer { state.stopping = true }
            return state.stopping
        }
        guard !already, lws.context != nil else { return }
        lws.cancelService()
        serviceThread?.join()
    }

    private var stopping: Bool { control.withLock { $0.stopping } }

    // MARK: - Service thread

    private func serve() {
        run(session.start(at: clock.now()))
        // lws_service sleeps until a socket is ready, a timer is due or
        // another thread cancels the wait.
        while !stopping { lws.service() }
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
            for _ in 0..<10 where wsi != nil { lws.service() }
        }
        endCalls()
        continuation.finish()
    }

    /// Another thread cancelled the wait: stopping, or the consumer caught up.
    func wokenUp() {
        guard !stopping else { return }
        if backlog.withLock({ $0.resumeIfAsked() }), let wsi { lws_rx_flow_control(wsi, 1) }
        startFetches()
        let calls = control.withLock { state in
            defer { state.calls.removeAll() }
            return state.calls
        }
        for call in calls {
            let now = clock.now()
            guard wsi != nil, let (id, commands) = session.callService(
                domain: call.domain, service: call.service, entityID: call.entityID, at: now)
            else {
                call.completion(.notConnected)
                continue
            }
            waitingCalls[id] = call.completion
            run(commands)
        }
    }

    /// Ends every call still waiting (the link is stopping).
    private func endCalls() {
        let calls = control.withLock { state in
            defer { state.calls.removeAll() }
            return state.calls
        }
        for call in calls { call.completion(.notConnected) }
        for (_, completion) in waitingCalls.sorted(by: { $0.key < $1.key }) { completion(.connectionLost) }
        waitingCalls = [:]
        let fetches = control.withLock { state in
            defer { state.fetches.removeAll() }
            return state.fetches
        }
        for fetch in fetches + runningFetches.values { fetch.finish(.notRunning) }
        runningFetches = [:]
    }

    /// The session's timer came due (on the link's thread).
    func timerFired() {
        guard !stopping else { return }
        scheduledDeadline = nil
        expireFetches(at: clock.now())
        run(session.tick(at: clock.now()))
    }

    /// Sets the session's timer to its next deadline (unchanged: left alone).
    private func scheduleSessionDeadline() {
        let deadline = [session.nextDeadline, runningFetches.values.map(\.deadline).min()].compactMap { $0 }.min()
        guard deadline != scheduledDeadline else { return }
        scheduledDeadline = deadline
        guard let deadline else {
            lws_sul_cancel(sessionTimer.list)
            return
        }
        lws.schedule(sessionTimer, after: deadline - clock.now())
    }

    /// Hands an event to the consumer; stops reading when it is too far behind.
    private func yield(_ event: LinkEvent) {
        continuation.yield(event)
        if backlog.withLock({ $0.yielded() }), let wsi { lws_rx_flow_control(wsi, 0) }
    }

    /// The consumer took an event (any thread).
    func consumed() {
        if backlog.withLock({ $0.consumed() }) { lws.cancelService() }
    }

    private func publishNotices() {
        for notice in session.takeNotices() {
            if case .serviceCallEnded(let id, let outcome) = notice {
                waitingCalls.removeValue(forKey: id)?(outcome)
                continue
            }
            yield(.notice(notice))
        }
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
        closeRequested = false
        outgoing.removeAll()
        incoming.removeAll()
        lastDisconnectCause = .connectFailed("connection failed")
        wsi = lws.connect()
        if wsi == nil { disconnected(.connectFailed("cannot connect to \(endpoint)")) }
    }

    func established(_ connection: OpaquePointer?) {
        wsi = connection
        isEstablished = true
        // A consumer still behind from the last connection: read nothing yet.
        if backlog.withLock({ $0.paused }) { lws_rx_flow_control(connection, 0) }
        yield(.connected)
        run(session.connected(at: clock.now()))
    }

    func disconnected(_ cause: DisconnectCause) {
        wsi = nil
        isEstablished = false
        outgoing.removeAll()
        incoming.removeAll()
        yield(.disconnected(cause))
        guard !stopping else { return }
        run(session.disconnected(at: clock.now(), random: Double.random(in: 0...1)))
    }

    func received(_ bytes: UnsafeRawBufferPointer, final: Bool) {
        guard !closeRequested else { return }
        if final && incoming.isEmpty {
            // The common case, a whole frame in one piece: read where lws put
            // it, copied only to be recorded.
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
        let messages: [HAMessage]
        do throws(HAMessageError) {
            messages = try reader.messages(in: bytes)
        } catch {
            yield(.notice(.requestFailed(id: -1, code: "bad_message", message: "\(error)")))
            return
        }
        let bulk = bytes.count >= 1 << 20
        var inputs: [PrinterInput] = []
        var commands: [HASession.Command] = []
        var events = 0
        var results = false
        for message in messages {
            commands += session.received(message, at: now)
            switch message {
            case .event: events += 1
            case .entityChanges: (events, results) = (events + 1, true)
            case .result: results = true
            default: break
            }
            inputs += reader.inputs(from: message)
        }
        // The registry the reader just read says which entities to watch.
        if session.wantsEntityList { commands += session.watch(reader.matcher.watchedEntityIDs, at: now) }
        if events > 0 { countEvents(events) }
        if results {
            let found = reader.matcher.buttons
            buttons.withLock { $0 = found }
        }
        if reader.matcher.camerasVersion != publishedCameras {
            // A snapshot, or a camera that came after it.
            publishedCameras = reader.matcher.camerasVersion
            let pictures = reader.matcher.cameras
            cameras.withLock { $0 = pictures }
        }
        let updates = reader.statistics.matchedUpdates
        matched.withLock { $0 = updates }
        if !inputs.isEmpty { yield(.printers(inputs)) }
        // The session's commands and notices after the frame's inputs, so
        // that "live" is told once the printers' states are handed on.
        run(commands)
        if results || bulk { yield(.bulkHandled) }
    }

    /// The time of the last event is wall time: a person reads it (metrics, status page).
    private func countEvents(_ count: Int) {
        let now = SystemClock().now()
        eventFrames.withLock { $0 = ($0.count + count, now.seconds) }
    }

    /// Writes one queued text, or closes (with our close frame's code);
    /// returns false to close the connection.
    func writable(_ connection: OpaquePointer?) -> Bool {
        if closeRequested {
            // RFC 6455 §7.4.1; libwebsockets sends the close frame.
            lws_close_reason(connection, closeStatus, nil, 0)
            return false
        }
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

    /// Why our close frame closes.
    private var closeStatus: lws_close_status {
        switch lastDisconnectCause {
        case .shuttingDown: return LWS_CLOSE_STATUS_GOINGAWAY
        case .messageTooLarge: return LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE
        default: return LWS_CLOSE_STATUS_NORMAL
        }
    }

    func closed() {
        disconnected(closeRequested ? lastDisconnectCause : .closed)
    }

    /// Seconds HA has to answer the WebSocket upgrade once it is sent (a
    /// Home Assistant still starting on a small machine may be slow).
    static let upgradeTimeout: Int32 = 20

    /// libwebsockets freed `connection`; if the link still holds it, nothing
    /// said it ended (a timed-out upgrade): it failed to connect.
    func destroyed(_ connection: OpaquePointer?) {
        guard connection == wsi else { return }
        guard isEstablished else { return disconnected(.connectFailed(connectFailure("closed before established", status: 0))) }
        closed()
    }

    /// The upgrade request went out on `connection` (the link's thread):
    /// HA has `upgradeTimeout` to answer, rather than libwebsockets' 5 s.
    func upgradeRequestSent(_ connection: OpaquePointer?) {
        guard connection == wsi, !isEstablished else { return }
        lws_set_timeout(connection, PENDING_TIMEOUT_AWAITING_SERVER_RESPONSE, Self.upgradeTimeout)
    }
}
