import PrintBridgeCore

/// A `state_changed` recording rewritten as HA 2024.3 sends the same
/// session to a `subscribe_entities` subscriber of every entity: the
/// `get_states` result becomes the subscription's answer and its first
/// event (every state, compressed), each `state_changed` event the change
/// HA derives from its old and new state (websocket_api/messages.py
/// `_state_diff_event`, `_state_diff`; core.py `as_compressed_state`). Other
/// lines (auth, the registry, bus events, pongs, lines that do not parse)
/// stay as they are. For the replay tests: a recording of either format
/// must tell the same.
enum EntitiesFormat {
    /// The subscription id each session's events carry.
    static let subscription = 900

    static func convert(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
        let extras = entitiesMissingFromSnapshots(lines)
        var snapshot = -1
        return lines.map { line -> String in
            guard let json = try? JSONParser.parse(line) else { return line }
            if case .array(let elements) = json {
                return JSONText.encode(.array(elements.flatMap { convert($0, extras: extras, snapshot: &snapshot) }))
            }
            let converted = convert(json, extras: extras, snapshot: &snapshot)
            return converted.count == 1 ? JSONText.encode(converted[0]) : JSONText.encode(.array(converted))
        }.joined(separator: "\n")
    }

    private static func messages(_ line: String) -> [JSONValue] {
        guard let json = try? JSONParser.parse(line) else { return [] }
        if case .array(let elements) = json { return elements }
        return [json]
    }

    private static func isSnapshot(_ message: JSONValue) -> Bool {
        message["type"]?.stringValue == "result"
            && message["result"]?.arrayValue?.contains(where: { $0["state"] != nil && $0["entity_id"] != nil }) == true
    }

    /// Entities a recording's `get_states` left out (a recorder that kept
    /// only some) whose first change names an old state: HA's subscription
    /// would have sent that state in its first event. By snapshot, in order.
    private static func entitiesMissingFromSnapshots(_ lines: [String]) -> [[String: JSONValue]] {
        var extras: [[String: JSONValue]] = []
        var known: Set<String> = []
        for message in lines.flatMap(messages) {
            if isSnapshot(message) {
                extras.append([:])
                known = Set(message["result"]?.arrayValue?.compactMap { $0["entity_id"]?.stringValue } ?? [])
                continue
            }
            guard !extras.isEmpty, message["event"]?["event_type"]?.stringValue == "state_changed",
                let data = message["event"]?["data"], let id = data["entity_id"]?.stringValue, known.insert(id).inserted
            else { continue }
            if let old = data["old_state"], old != .null { extras[extras.count - 1][id] = old }
        }
        return extras
    }

    private static func convert(_ message: JSONValue, extras: [[String: JSONValue]], snapshot: inout Int) -> [JSONValue] {
        if isSnapshot(message), let states = message["result"]?.arrayValue {
            snapshot += 1
            var added: [String: JSONValue] = extras[snapshot].mapValues(compressed)
            for state in states {
                if let id = state["entity_id"]?.stringValue { added[id] = compressed(state) }
            }
            return [
                .object(["id": .number(Double(subscription)), "type": "result", "success": true, "result": nil]),
                .object(["id": .number(Double(subscription)), "type": "event", "event": .object(["a": .object(added)])]),
            ]
        }
        guard message["type"]?.stringValue == "event", message["event"]?["event_type"]?.stringValue == "state_changed",
            let data = message["event"]?["data"], let id = data["entity_id"]?.stringValue
        else { return [message] }
        // (JSONValue is ExpressibleByNilLiteral: a `nil` here would be `.null`.)
        let old: JSONValue? = data["old_state"] == .null ? Optional.none : data["old_state"]
        let new: JSONValue? = data["new_state"] == .null ? Optional.none : data["new_state"]
        let event: JSONValue
        switch (old, new) {
        case (_, nil): event = .object(["r": .array([.string(id)])])
        case (nil, let new?): event = .object(["a": .object([id: compressed(new)])])
        case (let old?, let new?): event = .object(["c": .object([id: diff(old, new)])])
        }
        return [.object(["type": "event", "event": event, "id": .number(Double(subscription))])]
    }

    private static func seconds(_ iso: JSONValue?) -> JSONValue? {
        iso?.stringValue.flatMap(ISO8601.parse).map { .number($0.seconds) }
    }

    private static func context(_ state: JSONValue) -> JSONValue {
        let context = state["context"] ?? .null
        if (context["parent_id"] ?? .null) == .null, (context["user_id"] ?? .null) == .null { return context["id"] ?? .null }
        return context
    }

    /// `State.as_compressed_state`.
    static func compressed(_ state: JSONValue) -> JSONValue {
        let changed = state["last_changed"] ?? state["last_updated"]
        var members: [String: JSONValue] = [
            "s": state["state"] ?? .null, "a": state["attributes"] ?? .object([:]), "c": context(state),
            "lc": seconds(changed) ?? .null,
        ]
        if let updated = state["last_updated"], updated != changed { members["lu"] = seconds(updated) }
        return .object(members)
    }

    /// `_state_diff`.
    static func diff(_ old: JSONValue, _ new: JSONValue) -> JSONValue {
        var additions: [String: JSONValue] = [:]
        if old["state"] != new["state"] { additions["s"] = new["state"] }
        if old["last_changed"] != new["last_changed"] {
            additions["lc"] = seconds(new["last_changed"])
        } else if old["last_updated"] != new["last_updated"] {
            additions["lu"] = seconds(new["last_updated"])
        }
        if old["context"]?["id"] != new["context"]?["id"] { additions["c"] = context(new) }
        let before = old["attributes"]?.objectValue ?? [:], after = new["attributes"]?.objectValue ?? [:]
        var changed: [String: JSONValue] = [:]
        for (key, value) in after where before[key] != value { changed[key] = value }
        if !changed.isEmpty { additions["a"] = .object(changed) }
        var diff: [String: JSONValue] = ["+": .object(additions)]
        let removed = before.keys.filter { after[$0] == nil }.sorted()
        if !removed.isEmpty { diff["-"] = .object(["a": .array(removed.map { .string($0) })]) }
        return .object(diff)
    }
}
