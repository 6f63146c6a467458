/// What HA is asked to send: only the printers' entities.
///
/// After `auth_ok` (and `supported_features`): `subscribe_events` for
/// `entity_registry_updated` and `device_registry_updated` (HA lets any user
/// have them: `auth/permissions/events.py`, SUBSCRIBE_ALLOWLIST), then the
/// entity registry (`config/entity_registry/list_for_display`, any user:
/// `components/config/entity_registry.py`), in that order so that no change
/// falls between the list and its events. Once the registry has answered
/// and the link's matcher has read it, `watch` subscribes to the entities
/// the printers need (`subscribe_entities` with `entity_ids`,
/// `websocket_api/commands.py`, `handle_subscribe_entities`): HA answers,
/// sends every one of them in one event, then only their changes
/// (`HAEntityChanges`). The connection is live with that first event. The
/// first registry answer also subscribes to the printer integrations' own
/// bus events (`busEventTypes`; HA allows them to admins only and logs a
/// refusal).
///
/// A registry change event asks for the registry again
/// (`registryRefetchDelay` after the last, at most
/// `registryRefetchMaximumDelay` after the first); when the entities the
/// printers need differ, the subscription is ended (`unsubscribe_events`)
/// and made again with the new list, whose first event is a snapshot like
/// a reconnect's (nothing is told twice). HA reads an empty `entity_ids` as
/// every entity (`if not entity_ids or …`), so with no printer nothing is
/// asked for until the registry names one.
///
/// An HA that answers `unknown_command` to the registry or to
/// `subscribe_entities` (older than either), or refuses the registry, is
/// watched as before: `get_states`, then every `state_changed`
/// (`Notice.watchingEveryStateChange` names the HA version). Any other
/// refusal of `subscribe_entities`, `get_states` or `state_changed` closes
/// the connection (and it is retried).
extension HASession {
    /// The registry events that may change which entities are the printers'.
    static let registryEventTypes = ["entity_registry_updated", "device_registry_updated"]

    mutating func resetWatching() {
        watching = .printerEntities
        haVersion = nil
        subscriptionID = nil
        snapshotID = nil
        registryID = nil
        registryEventIDs = []
        busEventsSubscribed = false
        entitiesID = nil
        watchedEntities = nil
        wantsEntityList = false
        refetchAt = nil
        refetchLatest = nil
    }

    /// The requests that follow `auth_ok`.
    mutating func startWatching() -> [Command] {
        guard configuration.readsEntityRegistry else { return watchEveryStateChange() }
        var commands: [Command] = []
        for type in Self.registryEventTypes {
            registryEventIDs.insert(nextID)
            commands.append(.send(request(#""type":"subscribe_events","event_type":\#(JSONText.quoted(type))"#)))
        }
        return commands + [askForRegistry()]
    }

    private mutating func askForRegistry() -> Command {
        registryID = nextID
        return .send(request(#""type":"config/entity_registry/list_for_display""#))
    }

    /// The entities the printers need now (the matcher's, once it has read
    /// the registry answer that set `wantsEntityList`): subscribes to them,
    /// or subscribes again when they changed. Nothing when not asked.
    public mutating func watch(_ entityIDs: [String], at now: EpochTime) -> [Command] {
        guard wantsEntityList else { return [] }
        wantsEntityList = false
        guard watching == .printerEntities, entityIDs != watchedEntities else { return [] }
        var commands: [Command] = []
        if let previous = entitiesID {
            commands.append(.send(request(#""type":"unsubscribe_events","subscription":\#(previous)"#)))
            entitiesID = nil
        }
        watchedEntities = entityIDs
        notices.append(.watching(entities: entityIDs.count))
        guard !entityIDs.isEmpty else {
            becomeLive()
            return commands
        }
        entitiesID = nextID
        let list = entityIDs.map(JSONText.quoted).joined(separator: ",")
        commands.append(.send(request(#""type":"subscribe_entities","entity_ids":[\#(list)]"#)))
        return commands
    }

    mutating func becomeLive() {
        guard phase == .synchronising else { return }
        phase = .live
        reconnectAttempts = 0
        notices.append(.live)
    }

    /// A result that is no service call's.
    mutating func received(_ result: HAResult, at now: EpochTime) -> [Command] {
        guard let id = result.id else { return [] }
        if id == registryID {
            registryID = nil
            guard result.success else {
                notices.append(.requestFailed(id: id, code: result.errorCode, message: result.errorMessage))
                return watching == .printerEntities
                    ? watchEveryStateChange(command: "config/entity_registry/list_for_display", code: result.errorCode) : []
            }
            if watching == .printerEntities { wantsEntityList = true }
            return subscribeBusEvents()
        }
        guard !result.success else {
            if id == subscriptionID { becomeLive() }
            return []
        }
        if id == entitiesID {
            entitiesID = nil
            if result.errorCode == "unknown_command" {
                return watchEveryStateChange(command: "subscribe_entities", code: result.errorCode)
            }
            notices.append(.requestFailed(id: id, code: result.errorCode, message: result.errorMessage))
            return [.close(reason: "HA refused subscribe_entities")]
        }
        notices.append(.requestFailed(id: id, code: result.errorCode, message: result.errorMessage))
        if id == subscriptionID || id == snapshotID {
            return [.close(reason: "HA refused \(id == snapshotID ? "get_states" : "subscribe_events")")]
        }
        return []
    }

    /// ha-bambulab's (and any integration's) bus events, once per
    /// connection: their events name HA devices only the registry maps to
    /// printers.
    private mutating func subscribeBusEvents() -> [Command] {
        guard !busEventsSubscribed else { return [] }
        busEventsSubscribed = true
        return busEventTypes.map { type in
            .send(request(#""type":"subscribe_events","event_type":\#(JSONText.quoted(type))"#))
        }
    }

    /// `get_states`, then every `state_changed`: an HA that cannot send only
    /// the printers (`command` unknown or refused), or no registry wanted.
    private mutating func watchEveryStateChange(command: String? = nil, code: String? = nil) -> [Command] {
        watching = .everyStateChange
        wantsEntityList = false
        if let command {
            notices.append(.watchingEveryStateChange(haVersion: haVersion, command: command, code: code))
        }
        snapshotID = nextID
        var commands: [Command] = [.send(request(#""type":"get_states""#))]
        subscriptionID = nextID
        commands.append(.send(request(#""type":"subscribe_events","event_type":"state_changed""#)))
        return commands
    }

    /// A registry change event: ask for the registry again soon.
    mutating func registryChanged(at now: EpochTime) {
        let latest = refetchLatest ?? now + configuration.registryRefetchMaximumDelay
        refetchLatest = latest
        refetchAt = min(now + configuration.registryRefetchDelay, latest)
    }

    /// When the registry is next to be asked for (not while an answer is awaited).
    var refetchDeadline: EpochTime? { registryID == nil ? refetchAt : nil }

    /// The registry request, when due.
    mutating func refetchCommands(at now: EpochTime) -> [Command]? {
        guard let due = refetchDeadline, now >= due, phase != .authenticating else { return nil }
        refetchAt = nil
        refetchLatest = nil
        return [askForRegistry()]
    }
}
