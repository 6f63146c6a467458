/// A message received from HA's WebSocket API, reduced to what PrintBridge
/// acts on. Unknown message types are kept as `.other` rather than rejected:
/// HA adds types over time and a recorded file may hold any of them.
public enum HAMessage: Hashable, Sendable {
    case authRequired(haVersion: String?)
    case authOK(haVersion: String?)
    case authInvalid(message: String?)
    case result(HAResult)
    case event(id: Int?, HAEvent)
    /// An event of a `subscribe_entities` subscription: entities added,
    /// changed and removed in HA's compressed format (`HAEntityChanges`).
    case entityChanges(id: Int?, HAEntityChanges)
    case pong(id: Int?)
    case other(type: String)

    /// Decodes one message object (not a coalesced array: see `HAMessage.decodeAll`).
    public init(json: JSONValue) throws(HAMessageError) {
        guard let members = json.objectValue else { throw .shape("message is not a JSON object") }
        guard let type = members["type"]?.stringValue else {
            // A bare event object (HA's own event dumps, other recorders): an event.
            if members["event_type"]?.stringValue != nil, members["data"] != nil {
                self = .event(id: nil, try HAEvent(json: json))
                return
            }
            throw .shape("message has no \"type\"")
        }
        let id = members["id"]?.intValue
        switch type {
        case "auth_required": self = .authRequired(haVersion: members["ha_version"]?.stringValue)
        case "auth_ok": self = .authOK(haVersion: members["ha_version"]?.stringValue)
        case "auth_invalid": self = .authInvalid(message: members["message"]?.stringValue)
        case "pong": self = .pong(id: id)
        case "result": self = .result(try HAResult(members: members))
        case "event":
            guard let event = members["event"] else { throw .shape("event message has no \"event\"") }
            if let object = event.objectValue, HAEntityChanges.isCompressed(object) {
                self = .entityChanges(id: id, try HAEntityChanges(members: object))
            } else {
                self = .event(id: id, try HAEvent(json: event))
            }
        default: self = .other(type: type)
        }
    }

    /// The time a message speaks for: `time_fired` of an event, the newest
    /// `last_updated` of a state snapshot or of an entities event; nil when
    /// it carries none.
    public var time: EpochTime? {
        switch self {
        case .event(_, let event):
            return event.timeFired ?? event.stateChange?.newState?.lastUpdated
        case .entityChanges(_, let changes):
            return changes.time
        case .result(let result):
            return result.states()?.states.compactMap(\.lastUpdated).max()
        default:
            return nil
        }
    }

    /// Decodes a WebSocket text frame or a recorded line: one message object,
    /// or a JSON array of them when HA coalesces messages.
    public static func decodeAll(_ json: JSONValue) throws(HAMessageError) -> [HAMessage] {
        if case .array(let elements) = json {
            var messages: [HAMessage] = []
            messages.reserveCapacity(elements.count)
            for element in elements {
                messages.append(try HAMessage(json: element))
            }
            return messages
        }
        return [try HAMessage(json: json)]
    }
}

/// The reply to a command (`get_states`, `subscribe_events`, registry lookups…).
public struct HAResult: Hashable, Sendable {
    public var id: Int?
    public var success: Bool
    public var result: JSONValue
    public var errorCode: String?
    public var errorMessage: String?

    init(members: [String: JSONValue]) throws(HAMessageError) {
        id = members["id"]?.intValue
        guard let success = members["success"]?.boolValue else {
            throw .shape("result message has no boolean \"success\"")
        }
        self.success = success
        result = members["result"] ?? .null
        errorCode = members["error"]?["code"]?.stringValue
        errorMessage = members["error"]?["message"]?.stringValue
    }

    /// The entity states, when this is the result of `get_states`.
    ///
    /// Elements that are not state objects are skipped and counted in
    /// `skipped`, so one odd entity cannot hide every printer.
    public func states() -> (states: [HAState], skipped: Int)? {
        guard success, let elements = result.arrayValue else { return nil }
        guard elements.contains(where: { $0["state"] != nil && $0["entity_id"] != nil }) else {
            return nil
        }
        var states: [HAState] = []
        states.reserveCapacity(elements.count)
        var skipped = 0
        for element in elements {
            do throws(HAMessageError) { states.append(try HAState(json: element)) } catch { skipped += 1 }
        }
        return (states, skipped)
    }

    /// Entity-registry entries, when this is the result of
    /// `config/entity_registry/list_for_display` (short keys `ei`, `pl`, `tk`, `di`)
    /// or `config/entity_registry/list` (long keys).
    public func registryEntries() -> [EntityRegistryEntry]? {
        guard success else { return nil }
        let elements: [JSONValue]
        if let display = result["entities"]?.arrayValue {
            elements = display
        } else if let list = result.arrayValue,
            list.contains(where: { $0["translation_key"] != nil || $0["platform"] != nil }),
            !list.contains(where: { $0["state"] != nil })
        {
            elements = list
        } else {
            return nil
        }
        return elements.compactMap(EntityRegistryEntry.init(json:))
    }
}

/// One entity-registry row: enough to match localised entity ids by translation key.
public struct EntityRegistryEntry: Hashable, Sendable {
    public var entityID: String
    public var platform: String?
    public var translationKey: String?
    public var deviceID: String?

    public init(entityID: String, platform: String?, translationKey: String?, deviceID: String?) {
        self.entityID = entityID
        self.platform = platform
        self.translationKey = translationKey
        self.deviceID = deviceID
    }

    init?(json: JSONValue) {
        guard let entityID = json["ei"]?.stringValue ?? json["entity_id"]?.stringValue else { return nil }
        self.entityID = entityID
        platform = json["pl"]?.stringValue ?? json["platform"]?.stringValue
        translationKey = json["tk"]?.stringValue ?? json["translation_key"]?.stringValue
        deviceID = json["di"]?.stringValue ?? json["device_id"]?.stringValue
    }
}

/// An HA bus event. `state_changed` is decoded further; any other event
/// keeps its `data` object (a printer integration's own bus event names its
/// HA device and what happened there, `PrinterBusEvents`).
public struct HAEvent: Hashable, Sendable {
    public var eventType: String
    public var timeFired: EpochTime?
    public var stateChange: StateChange?
    /// The `data` members of an event other than `state_changed`.
    public var data: [String: JSONValue]

    public init(eventType: String, timeFired: EpochTime?, stateChange: StateChange?, data: [String: JSONValue] = [:]) {
        self.eventType = eventType
        self.timeFired = timeFired
        self.stateChange = stateChange
        self.data = data
    }

    init(json: JSONValue) throws(HAMessageError) {
        guard let eventType = json["event_type"]?.stringValue else {
            throw .shape("event has no \"event_type\"")
        }
        self.eventType = eventType
        timeFired = json["time_fired"]?.stringValue.flatMap(ISO8601.parse)
        if eventType == "state_changed" {
            guard let data = json["data"] else { throw .shape("state_changed event has no \"data\"") }
            stateChange = try StateChange(json: data)
            self.data = [:]
        } else {
            stateChange = nil
            self.data = json["data"]?.objectValue ?? [:]
        }
    }
}

/// The data of a `state_changed` event. `newState` is nil when the entity was removed.
public struct StateChange: Hashable, Sendable {
    public var entityID: String
    public var oldState: HAState?
    public var newState: HAState?

    public init(entityID: String, oldState: HAState?, newState: HAState?) {
        self.entityID = entityID
        self.oldState = oldState
        self.newState = newState
    }

    init(json: JSONValue) throws(HAMessageError) {
        guard let entityID = json["entity_id"]?.stringValue, !entityID.isEmpty else {
            throw .shape("state_changed data has no entity_id")
        }
        self.entityID = entityID
        oldState = try Self.state(json["old_state"], entityID: entityID, key: "old_state")
        newState = try Self.state(json["new_state"], entityID: entityID, key: "new_state")
    }

    private static func state(_ json: JSONValue?, entityID: String, key: String) throws(HAMessageError) -> HAState? {
        guard let json, json != .null else { return nil }
        guard json.objectValue != nil else { throw .shape("\(key) of \(entityID) is not an object") }
        var members = json.objectValue ?? [:]
        // The event's entity id is authoritative; a state object may omit its own.
        if members["entity_id"]?.stringValue == nil { members["entity_id"] = .string(entityID) }
        var state = try HAState(json: .object(members))
        state.entityID = entityID
        return state
    }
}

/// Why an HA message could not be used.
public enum HAMessageError: Error, Hashable, Sendable, CustomStringConvertible {
    case json(JSONParser.Error)
    case shape(String)

    public var description: String {
        switch self {
        case .json(let error): return error.description
        case .shape(let reason): return "unexpected message shape: \(reason)"
        }
    }
}
