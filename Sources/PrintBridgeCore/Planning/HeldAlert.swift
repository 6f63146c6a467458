/// An alert held for a phone in its quiet hours (issue 53): what it would
/// have said, kept (in the store, `held_alerts`) until the quiet hours end
/// and told then in one summary (`QuietSummary`).
public struct HeldAlert: Hashable, Sendable {
    public var deviceID: String
    public var printer: String
    /// The printer's name as the alert would have said it to this phone.
    public var printerName: String
    public var event: Push.Event
    public var fileName: String?
    public var printID: String?
    public var milestone: Int?
    /// Why it paused or failed, or the printer error's text, as the alert
    /// would have said it (in the phone's language where the agent writes it).
    public var reason: String?
    /// The quiet hours' zone when it was held: the summary's times are in it.
    public var timeZone: String
    /// When it happened.
    public var at: EpochTime
    /// When the quiet hours it was held in end: the summary's time.
    public var releaseAt: EpochTime

    public init(
        deviceID: String, printer: String, printerName: String, event: Push.Event, fileName: String? = nil,
        printID: String? = nil, milestone: Int? = nil, reason: String? = nil, timeZone: String, at: EpochTime,
        releaseAt: EpochTime
    ) {
        self.deviceID = deviceID
        self.printer = printer
        self.printerName = printerName
        self.event = event
        self.fileName = fileName
        self.printID = printID
        self.milestone = milestone
        self.reason = reason
        self.timeZone = timeZone
        self.at = at
        self.releaseAt = releaseAt
    }
}

extension QuietHours {
    /// Whether an alert for `event` is held at `time`: within the quiet
    /// hours, unless it is `urgent` and the phone lets those break through.
    public func holds(urgent: Bool, at time: EpochTime) -> Bool {
        contains(time) && !(breakthrough && urgent)
    }
}
