/// Makes, lists and deletes the broadcast channels Live Activities
/// subscribe to (iOS 18): APNs' channel management API ("Sending channel
/// management requests to APNs"). One method a call, so the agent's
/// channel keeping is tested without a network.
public protocol ChannelManager: Sendable {
    /// A new channel for Live Activity broadcasts; its id (base64, as APNs
    /// made it).
    func createChannel() async -> Result<String, ChannelFailure>
    /// Deletes a channel. A channel APNs no longer knows counts as deleted.
    func deleteChannel(_ id: String) async -> Result<Void, ChannelFailure>
    /// Every channel of the app in this environment (every agent's that
    /// uses the same key and bundle id: never delete one by this list alone).
    func listChannels() async -> Result<[String], ChannelFailure>
}

/// Why a channel management call did not do what it was asked.
public enum ChannelFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// APNs answered no, with its reason.
    case rejected(status: Int, reason: APNsReason)
    /// No answer (the connection, a timeout), in the transport's words.
    case unanswered(String)
    /// The client was shut down first.
    case shutDown

    /// APNs will say the same again until someone changes something (the
    /// app's broadcast capability, the key, the channel limit): the printer
    /// falls back to per-token updates. Anything else (429, 5xx, no answer)
    /// is worth another try after a back-off.
    public var isLasting: Bool {
        guard case .rejected(let status, let reason) = self else { return false }
        switch status {
        case 429, 500, 502, 503, 504: return false
        case 403 where reason == .expiredProviderToken: return false
        default: return true
        }
    }

    /// The channel asked about does not exist (any more).
    public var isUnknownChannel: Bool {
        guard case .rejected(_, let reason) = self else { return false }
        return reason == .channelNotRegistered
    }

    public var description: String {
        switch self {
        case .rejected(let status, let reason): return "\(status) \(reason)"
        case .unanswered(let message): return "no answer: \(message)"
        case .shutDown: return "shut down"
        }
    }
}
