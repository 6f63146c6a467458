import PrintBridgeCore

/// The diff format of `subscribe_entities` (HAEntityChanges) held to a model
/// of what HA's own frontend keeps (home-assistant-js-websocket
/// `entities.ts`, written here apart from the reader's code): the first
/// event of a subscription (by id, on a connection) is every state, later
/// ones add (`a`), change (`c`: `+` over the kept state, `lc` setting both
/// times, else `lu`; `-` attributes removed) and remove (`r`) entities.
/// What the reader makes of an event must agree: its snapshot is the
/// model's printer states, and each printer input is an entity the event
/// added or changed, in order, with the model's new state and (for a
/// change) the model's state before it.
struct EntitiesModel {
    private var states: [String: HAState] = [:]
    private var started: Set<Int> = []

    mutating func check(_ message: HAMessage, inputs: [PrinterInput], matcher: EntityMatcher) {
        switch message {
        case .authRequired, .authOK:
            states = [:]
            started = []
        case .entityChanges(let id, let changes):
            if let id, started.insert(id).inserted {
                states = [:]
                for state in changes.added { states[state.entityID] = state }
                checkSnapshot(inputs, matcher: matcher)
                return
            }
            var expected: [(id: String, new: HAState, old: HAState?)] = []
            for state in changes.added {
                states[state.entityID] = state
                expected.append((state.entityID, state, nil))
            }
            for diff in changes.changed {
                guard let old = states[diff.entityID] else { continue }
                let new = Self.overlay(diff, on: old)
                states[diff.entityID] = new
                expected.append((diff.entityID, new, old))
            }
            for id in changes.removed { states[id] = nil }
            var rest = expected[...]
            for input in inputs {
                guard case .entity(_, let new, let old) = input.kind else {
                    fatalError("an entities event made \(input)")
                }
                while let next = rest.first, next.id != new.entityID { rest.removeFirst() }
                guard let next = rest.popFirst() else { fatalError("an input for no entity the event named: \(new.entityID)") }
                precondition(next.new == new, "the reader's new state \(new), the model's \(next.new)")
                precondition(next.old == old, "the reader's old state \(String(describing: old)), the model's \(String(describing: next.old))")
                precondition(input.time == new.lastUpdated)
            }
        default:
            break
        }
    }

    private func checkSnapshot(_ inputs: [PrinterInput], matcher: EntityMatcher) {
        precondition(inputs.count == 1, "a subscription's first event is one snapshot: \(inputs)")
        guard case .snapshot(let matched) = inputs[0].kind else { fatalError("not a snapshot: \(inputs)") }
        let printers = states.values.filter { matcher.match(entityID: $0.entityID) != nil }
        precondition(Set(matched.map(\.state)) == Set(printers), "the snapshot is not the model's printer states")
        precondition(matched.map(\.state.entityID) == matched.map(\.state.entityID).sorted(), "one order, by entity id")
        precondition(inputs[0].time == states.values.compactMap(\.lastUpdated).max())
    }

    /// The frontend's overlay.
    private static func overlay(_ diff: HAEntityChanges.Diff, on old: HAState) -> HAState {
        var attributes = old.attributes
        attributes.merge(diff.attributes) { _, new in new }
        for key in diff.removedAttributes { attributes.removeValue(forKey: key) }
        return HAState(
            entityID: old.entityID, state: diff.state ?? old.state, attributes: attributes,
            lastChanged: diff.lastChanged ?? old.lastChanged,
            lastUpdated: diff.lastChanged ?? diff.lastUpdated ?? old.lastUpdated)
    }
}
