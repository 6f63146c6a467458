import PrintBridgeCore

/// What the agent did with a test push the API asked for.
public enum TestPushOutcome: Sendable {
    /// In the outbox, on its way to APNs: the push as it goes (its
    /// `apns-id`, token, payload, expiry), and the language of its texts.
    case queued(Push, language: String)
    /// The agent knows no phone of this id that can take alerts (it was
    /// removed, or APNs refused its token, meanwhile).
    case noPhone
    /// The agent is shutting down and takes no new pushes.
    case stopping
}

/// Hands a test push for phone `deviceID` to the running agent, which makes
/// it as it makes alerts and queues it in its outbox, and tells what became
/// of it, once, from any thread.
public typealias TestPushQueue = @Sendable (
    _ deviceID: String, _ done: @escaping @Sendable (TestPushOutcome) -> Void
) -> Void
