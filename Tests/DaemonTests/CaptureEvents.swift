import Foundation

/// The events of a `printbridge record` capture in the order HA sent them,
/// whichever way HA was asked: `state_changed` events as they are, and a
/// `subscribe_entities` subscription's (HA's compressed format: `a` added,
/// `c` changed with `+`/`-`, `r` removed) rebuilt into the `state_changed`
/// events they stand for: the entity's whole new state laid over the one
/// kept (as HA's frontend does), `time_fired` its new last_updated (`Date`,
/// full precision, under "fired"). A subscription's first event (every
/// state) is no change and makes none. Bus events (`bambu_lab_event`) as
/// they are.
enum CaptureEvents {
    static func events(_ messages: [[String: Any]]) -> [[String: Any]] {
        var states: [String: [String: Any]] = [:]
        var started: Set<Int> = []
        var events: [[String: Any]] = []
        for message in messages {
            if message["type"] as? String == "auth_ok" {
                states = [:]
                started = []
            }
            guard message["type"] as? String == "event", let event = message["event"] as? [String: Any] else { continue }
            if event["event_type"] != nil {
                var legacy = event
                if let fired = RealBambuLabTests.time(event["time_fired"]) { legacy["fired"] = fired }
                events.append(legacy)
                continue
            }
            let added = event["a"] as? [String: [String: Any]] ?? [:]
            if let id = message["id"] as? Int, started.insert(id).inserted {
                states = added.mapValues(state)
                continue
            }
            for (entity, compressed) in added.sorted(by: { $0.key < $1.key }) {
                let new = state(compressed)
                states[entity] = new
                events.append(change(entity, old: nil, new: new))
            }
            for (entity, diff) in (event["c"] as? [String: [String: Any]] ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard let old = states[entity] else { continue }
                var new = old
                let plus = diff["+"] as? [String: Any] ?? [:]
                if let value = plus["s"] { new["state"] = value }
                if let changed = plus["lc"] as? Double {
                    new["lc"] = changed
                    new["lu"] = changed
                } else if let updated = plus["lu"] as? Double {
                    new["lu"] = updated
                }
                var attributes = old["attributes"] as? [String: Any] ?? [:]
                for (key, value) in plus["a"] as? [String: Any] ?? [:] { attributes[key] = value }
                for key in (diff["-"] as? [String: Any])?["a"] as? [String] ?? [] { attributes[key] = nil }
                new["attributes"] = attributes
                states[entity] = new
                events.append(change(entity, old: old, new: new))
            }
            for entity in event["r"] as? [String] ?? [] {
                states[entity] = nil
            }
        }
        return events
    }

    /// A compressed state as the keys a state object has (times kept as numbers, `lc` and `lu`).
    private static func state(_ compressed: [String: Any]) -> [String: Any] {
        let changed = compressed["lc"] as? Double ?? 0
        return ["state": compressed["s"] ?? "unknown", "attributes": compressed["a"] ?? [String: Any](),
                "lc": changed, "lu": compressed["lu"] as? Double ?? changed]
    }

    private static func change(_ entity: String, old: [String: Any]?, new: [String: Any]) -> [String: Any] {
        var data: [String: Any] = ["entity_id": entity, "new_state": new]
        if let old { data["old_state"] = old }
        return ["event_type": "state_changed", "data": data,
                "fired": Date(timeIntervalSince1970: new["lu"] as? Double ?? 0)]
    }
}
