/// One alert sent to a phone, as the app's notification history shows it:
/// the texts the phone showed (in its language), why, and what became of it.
/// Only alerts to a phone's device token are kept; Live Activity pushes are
/// no notifications a user reads back.
public struct SentNotification: Hashable, Sendable {
    /// What became of the alert. `pending` until APNs has answered for good
    /// or the alert's `apns-expiration` passed: a push APNs did not answer
    /// is retried, never given up before it expires.
    public enum Outcome: String, Hashable, Sendable, CaseIterable {
        case pending, delivered, rejected, expired

        /// The outcome the outbox's settlement means; nil for a superseded
        /// push (only Live Activity updates are superseded).
        public init?(_ settlement: Outbox.Settlement) {
            switch settlement {
            case .delivered: self = .delivered
            case .rejected: self = .rejected
            case .expired: self = .expired
            case .superseded: return nil
            }
        }
    }

    /// The store's id, increasing, never reused (0 before it is stored).
    public var id: Int
    public var deviceID: String
    public var printer: String
    public var event: Push.Event
    public var title: String
    public var body: String
    /// Why the print paused, failed or was cancelled, or the printer error's
    /// text (`printerState.reason`), when the alert said.
    public var reason: String?
    /// When the agent made the alert.
    public var createdAt: EpochTime
    public var outcome: Outcome
    /// The push's `apns-id`: the same on every attempt, so its answer finds it.
    public var apnsID: String
    /// The link to the print's picture, while it lives (none yet).
    public var snapshot: String?

    /// The picture's link while it lives at `now` (a link that names no expiry lives on).
    public func snapshot(at now: EpochTime) -> String? {
        guard let snapshot else { return nil }
        if let expires = SnapshotLink.expiry(of: snapshot), expires <= now { return nil }
        return snapshot
    }

    public init(
        id: Int = 0, deviceID: String, printer: String, event: Push.Event, title: String, body: String,
        reason: String? = nil, createdAt: EpochTime, outcome: Outcome = .pending, apnsID: String, snapshot: String? = nil
    ) {
        self.id = id
        self.deviceID = deviceID
        self.printer = printer
        self.event = event
        self.title = title
        self.body = body
        self.reason = reason
        self.createdAt = createdAt
        self.outcome = outcome
        self.apnsID = apnsID
        self.snapshot = snapshot
    }

    /// The notification an alert push to a phone's device token is, read
    /// from its payload as sent (`aps.alert.title`/`body`,
    /// `printerState.reason`); nil for any other push, or one without an
    /// `apns-id` or an alert text.
    public init?(sent push: Push) {
        guard push.kind == .alert, push.tokenKind == .device, let apnsID = push.apnsID,
            let payload = (try? JSONParser.parse(push.payload))?.objectValue,
            let alert = payload["aps"]?.objectValue?["alert"]?.objectValue,
            let title = alert["title"]?.stringValue, let body = alert["body"]?.stringValue
        else { return nil }
        let reason = payload["printerState"]?.objectValue?["reason"]?.stringValue
        self.init(
            deviceID: push.deviceID, printer: push.printerPrefix, event: push.event, title: title, body: body,
            reason: reason, createdAt: push.createdAt, apnsID: apnsID)
    }

    /// What the outbox settled for a recorded alert: its `apns-id` and outcome.
    public struct Settled: Hashable, Sendable {
        public var apnsID: String
        public var outcome: Outcome

        public init(apnsID: String, outcome: Outcome) {
            self.apnsID = apnsID
            self.outcome = outcome
        }

        /// Nil when the settled push is no recorded notification (a Live
        /// Activity push, a superseded update).
        public init?(_ settled: Outbox.Actions.Settled) {
            let push = settled.entry.push
            guard push.kind == .alert, push.tokenKind == .device, let apnsID = push.apnsID,
                let outcome = Outcome(settled.settlement)
            else { return nil }
            self.init(apnsID: apnsID, outcome: outcome)
        }
    }
}
