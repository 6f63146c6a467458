/// The HA WebSocket protocol as a pure state machine: transport events and
/// messages in, commands out, time passed in. The link that owns the socket
/// runs it; tests drive it with made-up times.
///
/// On every connection: `auth_required` → `auth` → `auth_ok`, then (ids from
/// 1) `supported_features` (coalesced messages) and what HA should send:
/// only the printers' entities (`HASession+Watching.swift`: the registry, its
/// change events, `subscribe_entities` with the entities the printers need),
/// or, from an HA that cannot, every `state_changed`. A ping goes out every
/// `pingInterval`; no pong and no other message within `pongTimeout` closes
/// the connection (a pong queued behind a backlog of events HA is still
/// sending is late, not missing: the traffic shows the link alive). Any
/// disconnect is followed by a reconnect after an exponential, capped,
/// jittered wait; a rejected token waits `authRetryDelay` (minutes, not a
/// hot loop).
public struct HASession: Sendable {
    public struct Configuration: Hashable, Sendable {
        public var pingInterval: Double = 30
        public var pongTimeout: Double = 10
        public var reconnectInitialDelay: Double = 1
        public var reconnectMaximumDelay: Double = 60
        public var authRetryDelay: Double = 300
        /// How long a service call (`callService`) waits for HA's answer.
        public var serviceCallTimeout: Double = 10
        /// Ask for the entity registry, which says which entities are the
        /// printers' (false: every `state_changed`, as an HA without it).
        public var readsEntityRegistry = true
        /// After a registry change event, the registry is asked for again
        /// this long after the last one (HA's frontend waits 500 ms:
        /// `src/data/ws-entity_registry_display.ts`), and at most this long
        /// after the first (an integration's setup is a burst of them).
        public var registryRefetchDelay: Double = 0.5
        public var registryRefetchMaximumDelay: Double = 2
        public init() {}
    }

    public enum Phase: String, Hashable, Sendable {
        /// Not connected; `reconnectAt` says when to try.
        case disconnected
        case connecting
        case authenticating
        /// Authenticated; snapshot and subscription requested, not yet confirmed.
        case synchronising
        case live
        /// HA refused the token; waiting `authRetryDelay`.
        case rejected
    }

    public enum Command: Hashable, Sendable {
        /// Open a connection.
        case connect
        /// Send this text frame.
        case send(String)
        /// Close the connection (a disconnect follows).
        case close(reason: String)
    }

    /// Something worth a log line or a metric.
    public enum Notice: Hashable, Sendable {
        case authenticated(haVersion: String?)
        case authRejected(message: String?)
        /// The printers' states have come (the subscription's first event, or
        /// the snapshot before `state_changed`); HA is being watched.
        case live
        /// Asked HA for these entities only (`subscribe_entities`); 0: the
        /// registry names no printer yet, nothing is asked for.
        case watching(entities: Int)
        /// This HA cannot send only the printers (`command` unknown or
        /// refused): every `state_changed` is asked for instead.
        case watchingEveryStateChange(haVersion: String?, command: String, code: String?)
        case requestFailed(id: Int, code: String?, message: String?)
        case pongMissing
        case reconnectScheduled(afterSeconds: Double, attempt: Int)
        /// The service call with this id has its outcome.
        case serviceCallEnded(id: Int, ServiceCallOutcome)
    }

    /// How a service call (`callService`) ended.
    public enum ServiceCallOutcome: Hashable, Sendable {
        /// HA ran the service.
        case done
        /// HA refused or the service failed: HA's error code and message
        /// (`websocket_api/commands.py`, `handle_call_service`).
        case refused(code: String?, message: String?)
        /// The connection ended before HA answered; HA may or may not have run it.
        case connectionLost
        /// No answer within `serviceCallTimeout`.
        case timedOut
        /// Not connected to HA (or not yet live): nothing was sent.
        case notConnected
    }

    public let configuration: Configuration
    private let accessToken: String
    /// The HA event types the printer integrations fire about their printers.
    public let busEventTypes: [String]
    public internal(set) var phase: Phase = .disconnected
    public private(set) var reconnectAt: EpochTime?
    public internal(set) var reconnectAttempts = 0
    /// Notices since the caller last took them.
    public internal(set) var notices: [Notice] = []

    /// How this connection is told of the printers' states.
    public enum Watching: Hashable, Sendable {
        /// `subscribe_entities` with the printers' entities (HA sends nothing else).
        case printerEntities
        /// `get_states` and every `state_changed` (an HA without the above).
        case everyStateChange
    }

    public internal(set) var watching = Watching.printerEntities

    var nextID = 1
    var haVersion: String?
    /// `get_states` and `subscribe_events` `state_changed` (`everyStateChange`).
    var subscriptionID: Int?
    var snapshotID: Int?
    /// The registry asked for and not yet answered.
    var registryID: Int?
    /// The subscriptions to `entity_registry_updated` and `device_registry_updated`.
    var registryEventIDs: Set<Int> = []
    var busEventsSubscribed = false
    /// The current `subscribe_entities`, and the entities it asked for
    /// (nil: none asked for yet on this connection).
    var entitiesID: Int?
    var watchedEntities: [String]?
    /// A registry answer has come: the link is to say what to watch (`watch`).
    public internal(set) var wantsEntityList = false
    /// When the registry is to be asked for again after change events, and
    /// the latest that may be.
    var refetchAt: EpochTime?
    var refetchLatest: EpochTime?
    private var lastPingSent: EpochTime?
    private var pendingPing: (id: Int, sentAt: EpochTime)?
    private var lastActivity: EpochTime?
    /// Service calls sent on this connection and not yet answered, with when they were sent.
    private var pendingCalls: [Int: EpochTime] = [:]

    public init(
        accessToken: String, configuration: Configuration = .init(),
        busEventTypes: [String] = PrinterProfile.builtInBusEventTypes
    ) {
        self.accessToken = accessToken
        self.configuration = configuration
        self.busEventTypes = busEventTypes
    }

    /// Takes the notices gathered so far.
    public mutating func takeNotices() -> [Notice] {
        defer { notices.removeAll() }
        return notices
    }

    /// Begin: connect now.
    public mutating func start(at now: EpochTime) -> [Command] {
        phase = .connecting
        reconnectAt = nil
        return [.connect]
    }

    /// The WebSocket is open: HA speaks first (`auth_required`).
    public mutating func connected(at now: EpochTime) -> [Command] {
        phase = .authenticating
        endPendingCalls(.connectionLost)
        nextID = 1
        resetWatching()
        pendingPing = nil
        lastPingSent = now
        lastActivity = now
        return []
    }

    /// The connection is gone (closed, reset, failed to open). `random` in 0...1 jitters the wait.
    public mutating func disconnected(at now: EpochTime, random: Double) -> [Command] {
        pendingPing = nil
        endPendingCalls(.connectionLost)
        if phase == .rejected {
            reconnectAt = now + configuration.authRetryDelay
            notices.append(.reconnectScheduled(afterSeconds: configuration.authRetryDelay, attempt: reconnectAttempts))
            return []
        }
        reconnectAttempts += 1
        var delay = configuration.reconnectInitialDelay
        for _ in 1..<reconnectAttempts where delay < configuration.reconnectMaximumDelay { delay *= 2 }
        delay = min(delay, configuration.reconnectMaximumDelay) * (0.5 + 0.5 * min(max(random, 0), 1))
        phase = .disconnected
        reconnectAt = now + delay
        notices.append(.reconnectScheduled(afterSeconds: delay, attempt: reconnectAttempts))
        return []
    }

    /// A protocol message arrived (events too: they prove the link is alive).
    public mutating func received(_ message: HAMessage, at now: EpochTime) -> [Command] {
        lastActivity = now
        switch message {
        case .authRequired:
            return [.send(#"{"type":"auth","access_token":\#(JSONText.quoted(accessToken))}"#)]
        case .authOK(let version):
            notices.append(.authenticated(haVersion: version))
            haVersion = version
            phase = .synchronising
            return [.send(request(#""type":"supported_features","features":{"coalesce_messages":1}"#))]
                + startWatching()
        case .authInvalid(let text):
            notices.append(.authRejected(message: text))
            phase = .rejected
            return [.close(reason: "authentication rejected")]
        case .result(let result):
            if let id = result.id, pendingCalls.removeValue(forKey: id) != nil {
                let outcome: ServiceCallOutcome =
                    result.success ? .done : .refused(code: result.errorCode, message: result.errorMessage)
                notices.append(.serviceCallEnded(id: id, outcome))
                return []
            }
            return received(result, at: now)
        case .event(let id, _):
            if let id, registryEventIDs.contains(id) { registryChanged(at: now) }
            return []
        case .entityChanges(let id, _):
            if id != nil, id == entitiesID { becomeLive() }
            return []
        case .pong(let id):
            if let pending = pendingPing, id == nil || id == pending.id { pendingPing = nil }
            return []
        case .other:
            return []
        }
    }

    /// Asks HA to run `domain.service` on `entityID` (`call_service`), if
    /// the connection is live: the id its outcome will carry
    /// (`Notice.serviceCallEnded`) and the command that sends it; nil when
    /// not live (nothing is sent).
    public mutating func callService(
        domain: String, service: String, entityID: String, at now: EpochTime
    ) -> (id: Int, commands: [Command])? {
        guard phase == .live else { return nil }
        let id = nextID
        pendingCalls[id] = now
        let members = #""type":"call_service","domain":\#(JSONText.quoted(domain)),"service":\#(JSONText.quoted(service)),"target":{"entity_id":\#(JSONText.quoted(entityID))}"#
        return (id, [.send(request(members))])
    }

    private mutating func endPendingCalls(_ outcome: ServiceCallOutcome) {
        for id in pendingCalls.keys.sorted() { notices.append(.serviceCallEnded(id: id, outcome)) }
        pendingCalls = [:]
    }

    /// Time passed: reconnect when due, ping when due, give up on a silent link.
    public mutating func tick(at now: EpochTime) -> [Command] {
        for (id, sentAt) in pendingCalls.sorted(by: { $0.key < $1.key })
        where now - sentAt >= configuration.serviceCallTimeout {
            pendingCalls[id] = nil
            notices.append(.serviceCallEnded(id: id, .timedOut))
        }
        switch phase {
        case .disconnected, .rejected:
            guard let reconnectAt, now >= reconnectAt else { return [] }
            phase = .connecting
            self.reconnectAt = nil
            return [.connect]
        case .connecting:
            return []
        case .authenticating, .synchronising, .live:
            if let refetch = refetchCommands(at: now) { return refetch }
            if let pending = pendingPing, now - silentSince(pending.sentAt) >= configuration.pongTimeout {
                pendingPing = nil
                notices.append(.pongMissing)
                return [.close(reason: "no pong within \(Int(configuration.pongTimeout)) s")]
            }
            if phase == .authenticating, let lastActivity, now - lastActivity >= configuration.pingInterval {
                return [.close(reason: "no authentication answer")]
            }
            guard phase != .authenticating, pendingPing == nil,
                now - (lastPingSent ?? now) >= configuration.pingInterval
            else { return [] }
            let id = nextID
            lastPingSent = now
            pendingPing = (id, now)
            return [.send(request(#""type":"ping""#))]
        }
    }

    /// When `tick` next has something to do.
    public var nextDeadline: EpochTime? {
        let call = pendingCalls.values.min().map { $0 + configuration.serviceCallTimeout }
        return [protocolDeadline, call].compactMap { $0 }.min()
    }

    private var protocolDeadline: EpochTime? {
        switch phase {
        case .disconnected, .rejected: return reconnectAt
        case .connecting: return nil
        case .authenticating: return lastActivity.map { $0 + configuration.pingInterval }
        case .synchronising, .live:
            let ping: EpochTime?
            if let pending = pendingPing {
                ping = silentSince(pending.sentAt) + configuration.pongTimeout
            } else {
                ping = lastPingSent.map { $0 + configuration.pingInterval }
            }
            return [ping, refetchDeadline].compactMap { $0 }.min()
        }
    }

    /// The last sign of life since a ping went out: the ping itself, or any message after it.
    private func silentSince(_ sentAt: EpochTime) -> EpochTime {
        guard let lastActivity, lastActivity > sentAt else { return sentAt }
        return lastActivity
    }

    /// `{"id":N,<members>}` with the next id.
    mutating func request(_ members: String) -> String {
        defer { nextID += 1 }
        return "{\"id\":\(nextID),\(members)}"
    }
}

extension HASession: CustomStringConvertible {
    /// Never shows the access token.
    public var description: String { "HASession(phase: \(phase.rawValue), attempts: \(reconnectAttempts))" }
}
