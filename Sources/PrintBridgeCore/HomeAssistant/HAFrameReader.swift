/// The one path from an HA WebSocket frame (or a recorded line) to what the
/// session and the printers need: it owns the `EntityMatcher`.
///
/// A frame is one message or, with `coalesce_messages`, a JSON array of
/// whatever HA's writer had queued: events, results and pongs in any order
/// (`homeassistant/components/websocket_api/http.py`, `_writer`). The
/// reader splits every frame into its messages, so a pong or a result
/// behind an event reaches the session like any other. Every frame is
/// parsed once, `old_state` included: since the agent asks HA for the
/// printers' entities only (`subscribe_entities`), no household event comes
/// to be skipped, and an older HA's or a recording's `state_changed` events
/// about other entities cost a parse each (docs/BEHAVIOUR.md: "No frame
/// filter").
///
/// `inputs(from:)` then says what a message means to the printers, with
/// each entity already matched; registry results teach the matcher as they
/// pass. A `subscribe_entities` subscription's events (`HAEntityChanges`)
/// read as the `get_states` snapshot (its first) and `state_changed` events
/// (the rest) did: the reader keeps the watched entities' states and lays
/// each change over its entity's. The daemon runs it on the HA link's
/// thread, `replay` on its lines.
public struct HAFrameReader: Sendable {
    public private(set) var matcher: EntityMatcher
    public private(set) var statistics = Statistics()

    public struct Statistics: Hashable, Sendable {
        public var frames = 0
        public var messages = 0
        public var stateChanges = 0
        /// Printer entity updates (events and snapshot entries).
        public var matchedUpdates = 0
        /// Snapshot entries that were not state objects.
        public var malformedStates = 0

        public init() {}
    }

    /// The states of the entities a `subscribe_entities` subscription
    /// watches, which its changes (`c`) are laid over.
    private var watchedStates: [String: HAState] = [:]
    /// The subscriptions on this connection (or in this recorded session)
    /// whose first event, every entity asked for, has come.
    private var startedSubscriptions: Set<Int> = []

    public init(matcher: EntityMatcher = EntityMatcher()) {
        self.matcher = matcher
    }

    /// Members the pipeline never reads; skipped while parsing.
    static let unreadMembers: Set<String> = ["context"]

    /// The messages of one frame: one message, or the elements of a
    /// coalesced array in order.
    public mutating func messages(in frame: UnsafeRawBufferPointer) throws(HAMessageError) -> [HAMessage] {
        statistics.frames += 1
        return try parsedWhole(frame)
    }

    private mutating func parsedWhole(_ frame: UnsafeRawBufferPointer) throws(HAMessageError) -> [HAMessage] {
        let json: JSONValue
        do throws(JSONParser.Error) {
            json = try JSONParser.parse(frame, skippingKeys: Self.unreadMembers)
        } catch { throw .json(error) }
        let messages = try HAMessage.decodeAll(json)
        statistics.messages += messages.count
        return messages
    }

    /// What one message means to the printers. A registry result updates the
    /// matcher (and yields nothing); a snapshot yields its printer entities;
    /// a `state_changed` event about a printer entity yields that entity; an
    /// integration's own bus event (`PrinterBusEvents`) yields what happened
    /// for the printer of its HA device.
    public mutating func inputs(from message: HAMessage) -> [PrinterInput] {
        switch message {
        case .authRequired, .authOK:
            // A new connection (or the next session of a recording): ids start again at 1.
            startedSubscriptions = []
            watchedStates = [:]
            return []
        case .entityChanges(let id, let changes):
            return inputs(from: changes, subscription: id)
        case .event(_, let event):
            let time = message.time
            if let change = event.stateChange {
                statistics.stateChanges += 1
                guard let state = change.newState else { return [] }
                return entityInput(state, old: change.oldState, time: time)
            }
            if event.eventType == NotifyRequest.eventType {
                return [PrinterInput(time: time, .notify(NotifyRequest.read(event.data)))]
            }
            guard let bus = matcher.busEvents(ofType: event.eventType), let (device, kind) = bus.read(event.data),
                let prefix = matcher.printer(deviceID: device)
            else { return [] }
            return [PrinterInput(time: time, .printerEvent(prefix: prefix, type: kind))]
        case .result(let result):
            if let entries = result.registryEntries() {
                matcher.applyRegistry(entries)
                return []
            }
            guard let (states, skipped) = result.states() else { return [] }
            statistics.malformedStates += skipped
            return [snapshot(states)]
        default:
            return []
        }
    }

    /// The printer entities of a set of states (`get_states`, or a
    /// subscription's first event), their printers learned first.
    private mutating func snapshot(_ states: [HAState]) -> PrinterInput {
        matcher.learn(from: states)
        let matched = states.compactMap { state in
            matcher.match(entityID: state.entityID).map { MatchedState(match: $0, state: state) }
        }
        statistics.matchedUpdates += matched.count
        return PrinterInput(time: states.compactMap(\.lastUpdated).max(), .snapshot(matched))
    }

    /// A `subscribe_entities` event: its first is the snapshot of every
    /// entity asked for; then each added or changed entity (changes laid
    /// over the state kept) is what a `state_changed` event would be, with
    /// the kept state as the old one. A change to an entity never added is
    /// dropped (counted as malformed); a removed entity is forgotten.
    private mutating func inputs(from changes: HAEntityChanges, subscription id: Int?) -> [PrinterInput] {
        statistics.malformedStates += changes.skipped
        statistics.stateChanges += changes.count
        if let id, startedSubscriptions.insert(id).inserted {
            watchedStates = Dictionary(changes.added.map { ($0.entityID, $0) }) { $1 }
            return [snapshot(changes.added)]
        }
        var inputs: [PrinterInput] = []
        for state in changes.added {
            watchedStates[state.entityID] = state
            inputs += entityInput(state, old: nil, time: state.lastUpdated)
        }
        for diff in changes.changed {
            guard let old = watchedStates[diff.entityID] else {
                statistics.malformedStates += 1
                continue
            }
            let new = diff.applied(to: old)
            watchedStates[diff.entityID] = new
            inputs += entityInput(new, old: old, time: new.lastUpdated)
        }
        for entityID in changes.removed { watchedStates[entityID] = nil }
        return inputs
    }

    /// A printer entity's new state, as its input; another entity may be a
    /// printer's camera that came after the snapshot.
    private mutating func entityInput(_ state: HAState, old: HAState?, time: EpochTime?) -> [PrinterInput] {
        guard let match = matcher.match(entityID: state.entityID) else {
            _ = matcher.noteCamera(entityID: state.entityID)
            return []
        }
        matcher.noteStatus(match)
        statistics.matchedUpdates += 1
        return [PrinterInput(time: time, .entity(match, new: state, old: old))]
    }
}

/// One piece of news about printers, as the frame reader hands it to the pipeline.
public struct PrinterInput: Hashable, Sendable {
    /// The time it speaks for (`time_fired`, or a snapshot's newest
    /// `last_updated`); replay's clock follows it.
    public var time: EpochTime?
    public var kind: Kind

    public enum Kind: Hashable, Sendable {
        /// A printer entity's new state, with HA's previous state (read only
        /// for a field not yet known).
        case entity(EntityMatch, new: HAState, old: HAState?)
        /// The printer entities of a `get_states` snapshot.
        case snapshot([MatchedState])
        /// An integration's bus event about a printer, by what happened
        /// (`PrinterBusEvents.kindMember`); the printer's profile says what
        /// it means.
        case printerEvent(prefix: String, type: String)
        /// An automation's alert (`printbridge_notify`), or what was wrong with it.
        case notify(Result<NotifyRequest, NotifyRequest.Problem>)
    }

    public init(time: EpochTime?, _ kind: Kind) {
        self.time = time
        self.kind = kind
    }
}

/// A snapshot entry that belongs to a printer.
public struct MatchedState: Hashable, Sendable {
    public var match: EntityMatch
    public var state: HAState

    public init(match: EntityMatch, state: HAState) {
        self.match = match
        self.state = state
    }
}
