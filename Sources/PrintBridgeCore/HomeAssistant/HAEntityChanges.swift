/// One event of a `subscribe_entities` subscription, in HA's compressed
/// state format (HA 2024.3 `homeassistant/components/websocket_api/messages.py`,
/// `_state_diff_event`, `_state_diff`; `core.py`, `State.as_compressed_state`):
///
/// - `a` entities added, each with its whole compressed state
///   (`{"s": state, "a": attributes, "c": context, "lc": last_changed,
///   "lu": last_updated when it differs}`, times as seconds since 1970). The
///   subscription's first event holds every entity asked for
///   (`commands.py`, `_send_handle_entities_init_response`); later, an entity
///   that appears (its `old_state` was None).
/// - `c` entities changed: `+` what is new (`s` when the state changed; `lc`
///   when last_changed moved, else `lu`; `a` only the attributes whose value
///   changed; `c` the context), `-` the attribute keys removed (`{"a": [...]}`).
/// - `r` entities removed (their `new_state` was None).
///
/// An entry that does not read as its kind is dropped and counted in
/// `skipped`, as `get_states` elements are: one odd entity hides no printer.
public struct HAEntityChanges: Hashable, Sendable {
    /// Added entities, by entity id (sorted, so a snapshot is read in one order).
    public var added: [HAState]
    public var changed: [Diff]
    public var removed: [String]
    /// Entries that were not of their kind's shape.
    public var skipped: Int

    public init(added: [HAState] = [], changed: [Diff] = [], removed: [String] = [], skipped: Int = 0) {
        self.added = added
        self.changed = changed
        self.removed = removed
        self.skipped = skipped
    }

    /// What changed in one entity (`_state_diff`).
    public struct Diff: Hashable, Sendable {
        public var entityID: String
        /// `+s`: the new state, when it changed.
        public var state: String?
        /// `+a`: the attributes whose value changed, with their new values.
        public var attributes: [String: JSONValue]
        /// `-a`: the attributes no longer there.
        public var removedAttributes: [String]
        /// `+lc`: last_changed moved (and last_updated with it).
        public var lastChanged: EpochTime?
        /// `+lu`: only last_updated moved.
        public var lastUpdated: EpochTime?

        public init(
            entityID: String, state: String? = nil, attributes: [String: JSONValue] = [:],
            removedAttributes: [String] = [], lastChanged: EpochTime? = nil, lastUpdated: EpochTime? = nil
        ) {
            self.entityID = entityID
            self.state = state
            self.attributes = attributes
            self.removedAttributes = removedAttributes
            self.lastChanged = lastChanged
            self.lastUpdated = lastUpdated
        }

        /// The time this change speaks for: HA's new last_updated.
        public var time: EpochTime? { lastChanged ?? lastUpdated }

        /// `old` with this change laid over it, as HA's own frontend does
        /// (home-assistant-js-websocket, `entities.ts`): `lc` sets both
        /// times, `lu` the last update only.
        public func applied(to old: HAState) -> HAState {
            var new = old
            if let state { new.state = state }
            if let lastChanged {
                new.lastChanged = lastChanged
                new.lastUpdated = lastChanged
            } else if let lastUpdated {
                new.lastUpdated = lastUpdated
            }
            for (key, value) in attributes { new.attributes[key] = value }
            for key in removedAttributes { new.attributes[key] = nil }
            return new
        }
    }

    /// Every entity this event names.
    public var count: Int { added.count + changed.count + removed.count }

    /// The time the event speaks for: its newest last_updated.
    public var time: EpochTime? {
        (added.compactMap(\.lastUpdated) + changed.compactMap(\.time)).max()
    }

    /// Whether an event object is in this format rather than a bus event's
    /// (`event_type`, `data`).
    static func isCompressed(_ members: [String: JSONValue]) -> Bool {
        members["event_type"] == nil && (members["a"] != nil || members["c"] != nil || members["r"] != nil)
    }

    init(members: [String: JSONValue]) throws(HAMessageError) {
        var added: [HAState] = [], changed: [Diff] = [], removed: [String] = [], skipped = 0
        if let value = members["a"] {
            guard let entries = value.objectValue else { throw .shape("entities event's \"a\" is not an object") }
            for (entityID, compressed) in entries {
                if let state = Self.state(entityID, compressed) { added.append(state) } else { skipped += 1 }
            }
        }
        if let value = members["c"] {
            guard let entries = value.objectValue else { throw .shape("entities event's \"c\" is not an object") }
            for (entityID, diff) in entries {
                if let diff = Self.diff(entityID, diff) { changed.append(diff) } else { skipped += 1 }
            }
        }
        if let value = members["r"] {
            guard let entries = value.arrayValue else { throw .shape("entities event's \"r\" is not an array") }
            for entry in entries {
                if let entityID = entry.stringValue, !entityID.isEmpty { removed.append(entityID) } else { skipped += 1 }
            }
        }
        self.init(
            added: added.sorted { $0.entityID < $1.entityID }, changed: changed.sorted { $0.entityID < $1.entityID },
            removed: removed, skipped: skipped)
    }

    /// A compressed state (`as_compressed_state`); the state string read as
    /// leniently as `HAState(json:)` reads it.
    private static func state(_ entityID: String, _ json: JSONValue) -> HAState? {
        guard !entityID.isEmpty, let members = json.objectValue else { return nil }
        guard members["a"] == nil || members["a"]?.objectValue != nil else { return nil }
        let lastChanged = members["lc"]?.numberValue.map(EpochTime.init(seconds:))
        return HAState(
            entityID: entityID, state: members["s"]?.scalarText ?? "unknown",
            attributes: members["a"]?.objectValue ?? [:], lastChanged: lastChanged,
            lastUpdated: members["lu"]?.numberValue.map(EpochTime.init(seconds:)) ?? lastChanged)
    }

    private static func diff(_ entityID: String, _ json: JSONValue) -> Diff? {
        guard !entityID.isEmpty, let members = json.objectValue else { return nil }
        var diff = Diff(entityID: entityID)
        if let additions = members["+"] {
            guard let plus = additions.objectValue else { return nil }
            if let state = plus["s"] { diff.state = state.scalarText ?? "unknown" }
            if let attributes = plus["a"] {
                guard let changed = attributes.objectValue else { return nil }
                diff.attributes = changed
            }
            diff.lastChanged = plus["lc"]?.numberValue.map(EpochTime.init(seconds:))
            diff.lastUpdated = plus["lu"]?.numberValue.map(EpochTime.init(seconds:))
        }
        if let removals = members["-"] {
            guard let minus = removals.objectValue else { return nil }
            if let keys = minus["a"] {
                guard let list = keys.arrayValue else { return nil }
                diff.removedAttributes = list.compactMap(\.stringValue)
            }
        }
        return diff
    }
}
