/// One entity's state object as HA sends it (in `get_states` results and in
/// the `old_state` / `new_state` of a `state_changed` event).
public struct HAState: Hashable, Sendable {
    public var entityID: String
    public var state: String
    public var attributes: [String: JSONValue]
    public var lastChanged: EpochTime?
    public var lastUpdated: EpochTime?

    public init(
        entityID: String, state: String, attributes: [String: JSONValue] = [:],
        lastChanged: EpochTime? = nil, lastUpdated: EpochTime? = nil
    ) {
        self.entityID = entityID
        self.state = state
        self.attributes = attributes
        self.lastChanged = lastChanged
        self.lastUpdated = lastUpdated
    }

    /// Reads a state object. The state string is taken leniently (a number or
    /// boolean becomes its text, null becomes "unknown") because HA
    /// integrations are not always tidy; a missing entity id is an error.
    public init(json: JSONValue) throws(HAMessageError) {
        guard let members = json.objectValue else { throw .shape("state is not an object") }
        guard let entityID = members["entity_id"]?.stringValue, !entityID.isEmpty else {
            throw .shape("state has no entity_id")
        }
        self.entityID = entityID
        self.state = members["state"]?.scalarText ?? "unknown"
        self.attributes = members["attributes"]?.objectValue ?? [:]
        self.lastChanged = members["last_changed"]?.stringValue.flatMap(ISO8601.parse)
        self.lastUpdated = members["last_updated"]?.stringValue.flatMap(ISO8601.parse) ?? lastChanged
    }

    public var friendlyName: String? { attributes["friendly_name"]?.stringValue }

    public var unitOfMeasurement: String? { attributes["unit_of_measurement"]?.stringValue }
}
