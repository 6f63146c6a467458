/// Anything that takes pushes the planner made: the APNs sender, the
/// dry-run printer. One method, so transports stay at the edges.
public protocol PushSender: Sendable {
    /// Delivers one push and says how it ended. Never throws: every push
    /// ends as delivered, rejected or given up, with the reason.
    func send(_ push: Push) async -> PushOutcome

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
