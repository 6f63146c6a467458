/// What an integration's bus event says about a print.
public enum PrinterBusEvent: Hashable, Sendable {
    /// The print failed. Raised as the printer's state turns failed, before
    /// the status entity says so, and possibly before a cancel code that
    /// makes it a cancel.
    case failed
    /// The user cancelled the print. Counts as the integration's cancel code.
    case cancelled
}

/// An integration's own events on HA's bus about its printers: the event
/// type they come as, how one names its HA device and what happened, and
/// what each happening means. The session subscribes to every built-in
/// (and mapped) integration's event type; the frame reader reads them with
/// this; the pipeline asks the printer's profile what one means.
public struct PrinterBusEvents: Hashable, Sendable {
    /// The HA event type (`event_type`).
    public var eventType: String
    /// The member of the event's `data` that names the HA device.
    public var deviceMember: String
    /// The member of the event's `data` that says what happened.
    public var kindMember: String
    /// What each value of `kindMember` means; others say nothing about a print.
    public var meanings: [String: PrinterBusEvent]

    public init(
        eventType: String, deviceMember: String = "device_id", kindMember: String = "type",
        meanings: [String: PrinterBusEvent]
    ) {
        self.eventType = eventType
        self.deviceMember = deviceMember
        self.kindMember = kindMember
        self.meanings = meanings
    }

    /// The HA device and the kind of happening in one event's data, or nil
    /// when either is missing.
    public func read(_ data: [String: JSONValue]) -> (deviceID: String, kind: String)? {
        guard let device = data[deviceMember]?.stringValue, let kind = data[kindMember]?.stringValue else { return nil }
        return (device, kind)
    }
}
