/// Anything that takes pushes the planner made: the APNs sender, the
/// dry-run printer. One method, so transports stay at the edges.
public protocol PushSender: Sendable {
    /// Delivers one push and says how it ended. Never throws: every push
    /// ends as delivered, rejected or given up, with the reason.
    func send(_ push: Push) async -> PushOutcome

    /// Starts every push and returns at once; `receiver` gets each one's
    /// outcome, once, with its tag. A fan-out's way: no task a push where
    /// the sender can avoid one (APNsSender answers from its connection's
    /// thread). The default runs `send(_:)` in a task a push, each started
    /// at once on the caller's thread (`Task.immediate`), in order.
    func send(_ pushes: [TaggedPush], to receiver: any PushOutcomeReceiver)

    /// What a delivered push was: an answer from APNs, or a line printed.
    var deliveryKind: DeliveryKind { get }

    /// Stops taking pushes after those in flight had up to `grace` seconds;
    /// what is left ends as given up (shut down).
    func shutdown(grace: Double)
}

/// Where a sender's "delivered" went.
public enum DeliveryKind: String, Sendable {
    /// APNs accepted it.
    case apns
    /// It was written to the log instead (`--dry-run`, DRY_RUN): counted as
    /// `dry_run`, and the sender's own line is its record.
    case dryRun = "dry_run"
}

extension PushSender {
    public var deliveryKind: DeliveryKind { .apns }
    public func shutdown(grace: Double) {}

    public func send(_ pushes: [TaggedPush], to receiver: any PushOutcomeReceiver) {
        for tagged in pushes {
            Task.immediate { receiver.received(await send(tagged.push), tag: tagged.tag) }
        }
    }
}

/// A push and the caller's name for it (an index, a sequence number), which
/// its outcome comes back with.
public struct TaggedPush: Sendable {
    public var push: Push
    public var tag: Int

    public init(_ push: Push, tag: Int) {
        self.push = push
        self.tag = tag
    }
}

/// Takes the outcomes of `PushSender.send(_:to:)`. Called on whatever
/// thread the sender finishes a push on (APNsSender: its connection's
/// thread): keep it short and never wait in it.
public protocol PushOutcomeReceiver: AnyObject, Sendable {
    func received(_ outcome: PushOutcome, tag: Int)
}

/// How a push ended.
public enum PushOutcome: Hashable, Sendable, CustomStringConvertible {
    /// APNs accepted it (HTTP 200), with the `apns-id` it answered.
    case delivered(apnsID: String)
    /// APNs refused it for good; `tokenAction` says what the token deserves.
    case rejected(status: Int, reason: APNsReason, tokenAction: TokenAction?)
    /// Retries ran out (or could not be made); nothing more will be tried.
    case gaveUp(cause: GiveUpCause, attempts: Int)

    /// What to do with a token APNs refused.
    public enum TokenAction: String, Hashable, Sendable {
        /// 410 Unregistered / ExpiredToken: the token is dead, delete it.
        case remove
        /// 400 BadDeviceToken / DeviceTokenNotForTopic: keep it but stop using it
        /// (usually the sandbox/production environment is wrong).
        case disable
    }

    public var isDelivered: Bool {
        if case .delivered = self { return true }
        return false
    }

    /// Whether APNs gave an HTTP answer (delivered or rejected), as opposed to none.
    public var isAnswered: Bool {
        if case .gaveUp = self { return false }
        return true
    }

    /// Apple's reason (or why it was given up); empty when delivered.
    public var reason: String {
        switch self {
        case .delivered: return ""
        case .rejected(_, let reason, _): return reason.text
        case .gaveUp(let cause, _): return cause.description
        }
    }

    /// `delivered`, `rejected` or `gave_up`, for logs and output.
    public var name: String {
        switch self {
        case .delivered: return "delivered"
        case .rejected: return "rejected"
        case .gaveUp: return "gave_up"
        }
    }

    /// A bounded label for the push metrics' `reason`: Apple's word or the
    /// kind of failure, empty when delivered.
    public var metricReason: String {
        switch self {
        case .delivered: return ""
        case .rejected(_, let reason, _): return reason.metricLabel
        case .gaveUp(let cause, _): return cause.metricLabel
        }
    }

    public var description: String {
        switch self {
        case .delivered(let id): return "delivered (apns-id \(id))"
        case .rejected(let status, let reason, let action):
            return "rejected \(status) \(reason)" + (action.map { " (token: \($0.rawValue))" } ?? "")
        case .gaveUp(let cause, let attempts): return "gave up after \(attempts) attempt(s): \(cause)"
        }
    }
}
