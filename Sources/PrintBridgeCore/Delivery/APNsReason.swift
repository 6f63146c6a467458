/// Why APNs refused a push: the `reason` of its error body, as Apple lists
/// them ("Handling notification responses from APNs"), or `other` with the
/// text for anything else (a reason Apple adds later, or "HTTP 502" from a
/// proxy that answered without a body). Compared and counted by case, never
/// by parsing text.
public enum APNsReason: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    case badCollapseID, badDeviceToken, badExpirationDate, badMessageID, badPriority, badTopic
    case deviceTokenNotForTopic, duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken
    case missingTopic, payloadEmpty, topicDisallowed
    case badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden, invalidProviderToken
    case missingProviderToken, unrelatedKeyID
    case badPath, methodNotAllowed
    case expiredToken, unregistered
    case payloadTooLarge, tooManyProviderTokenUpdates, tooManyRequests
    case internalServerError, serviceUnavailable, shutdown
    /// The broadcast and channel management APIs' own ("Sending channel
    /// management requests to APNs", "Sending broadcast push notification
    /// requests to APNs"; the list as alexandercerutti/hapns
    /// src/connectors/apns-errors/index.ts has it).
    case featureNotEnabled, missingChannelID, badChannelID, channelNotRegistered, badRequestParams
    case badRequestPayload, missingPushType, cannotCreateChannelConfig, topicMismatch
    /// A reason not in Apple's list, as it came.
    case other(String)

    private static let known: [(APNsReason, String)] = [
        (.badCollapseID, "BadCollapseId"), (.badDeviceToken, "BadDeviceToken"),
        (.badExpirationDate, "BadExpirationDate"), (.badMessageID, "BadMessageId"), (.badPriority, "BadPriority"),
        (.badTopic, "BadTopic"), (.deviceTokenNotForTopic, "DeviceTokenNotForTopic"),
        (.duplicateHeaders, "DuplicateHeaders"), (.idleTimeout, "IdleTimeout"), (.invalidPushType, "InvalidPushType"),
        (.missingDeviceToken, "MissingDeviceToken"), (.missingTopic, "MissingTopic"), (.payloadEmpty, "PayloadEmpty"),
        (.topicDisallowed, "TopicDisallowed"), (.badCertificate, "BadCertificate"),
        (.badCertificateEnvironment, "BadCertificateEnvironment"), (.expiredProviderToken, "ExpiredProviderToken"),
        (.forbidden, "Forbidden"), (.invalidProviderToken, "InvalidProviderToken"),
        (.missingProviderToken, "MissingProviderToken"), (.unrelatedKeyID, "UnrelatedKeyIdInToken"),
        (.badPath, "BadPath"), (.methodNotAllowed, "MethodNotAllowed"), (.expiredToken, "ExpiredToken"),
        (.unregistered, "Unregistered"), (.payloadTooLarge, "PayloadTooLarge"),
        (.tooManyProviderTokenUpdates, "TooManyProviderTokenUpdates"), (.tooManyRequests, "TooManyRequests"),
        (.internalServerError, "InternalServerError"), (.serviceUnavailable, "ServiceUnavailable"),
        (.shutdown, "Shutdown"),
        (.featureNotEnabled, "FeatureNotEnabled"), (.missingChannelID, "MissingChannelId"),
        (.badChannelID, "BadChannelId"), (.channelNotRegistered, "ChannelNotRegistered"),
        (.badRequestParams, "BadRequestParams"), (.badRequestPayload, "BadRequestPayload"),
        (.missingPushType, "MissingPushType"), (.cannotCreateChannelConfig, "CannotCreateChannelConfig"),
        (.topicMismatch, "TopicMismatch"),
    ]
    private static let byText = Dictionary(uniqueKeysWithValues: known.map { ($0.1, $0.0) })
    private static let byReason = Dictionary(uniqueKeysWithValues: known.map { ($0.0, $0.1) })

    /// Apple's word for it (or the text that came).
    public init(_ text: String) { self = Self.byText[text] ?? .other(text) }
    public init(stringLiteral text: String) { self.init(text) }

    public var text: String {
        if case .other(let text) = self { return text }
        return Self.byReason[self] ?? ""
    }

    public var description: String { text }

    /// A bounded label for metrics: Apple's word, or "other" (free text
    /// would make a new series each time).
    public var metricLabel: String {
        if case .other = self { return "other" }
        return text
    }

    /// The token is in the wrong environment or belongs to another app:
    /// keep it, stop using it.
    public var disablesToken: Bool { self == .badDeviceToken || self == .deviceTokenNotForTopic }

    /// What a user should check.
    public var advice: String? {
        switch self {
        case .badDeviceToken, .deviceTokenNotForTopic:
            return "the token belongs to another APNs environment (check APNS_PRODUCTION) or another app (APNS_BUNDLE_ID)"
        case .unregistered, .expiredToken:
            return "the app was removed or the token replaced; the token is deleted"
        case .invalidProviderToken, .missingProviderToken, .unrelatedKeyID:
            return "check APNS_TEAM_ID, APNS_KEY_ID and that the key belongs to that team"
        case .expiredProviderToken:
            return "check this machine's clock"
        case .topicDisallowed, .badTopic, .topicMismatch:
            return "check APNS_BUNDLE_ID and that the key may send to it"
        case .featureNotEnabled:
            return "turn on the Broadcast capability of the app's push notifications (Apple Developer, the App ID); until then Live Activities are updated one token at a time"
        case .cannotCreateChannelConfig:
            return "the app has 10,000 broadcast channels in this environment; delete those no agent uses"
        case .channelNotRegistered, .badChannelID:
            return "the channel is gone; the agent makes a new one"
        default:
            return nil
        }
    }
}

/// Why a push was given up without an answer from APNs.
public enum GiveUpCause: Hashable, Sendable, CustomStringConvertible {
    /// The connection failed every attempt (the transport's or the system's words).
    case connection(String)
    /// APNs answered "try later" (429, 500, 503) every attempt.
    case busy(status: Int, reason: APNsReason)
    /// The provider token could not be signed with the key.
    case signing
    /// The sender was shut down first.
    case shutDown

    public var description: String {
        switch self {
        case .connection(let message): return "connection: \(message)"
        case .busy(let status, let reason): return "\(status) \(reason)"
        case .signing: return "could not sign the provider token with the APNs key"
        case .shutDown: return "sender shut down"
        }
    }

    /// A bounded label for metrics.
    public var metricLabel: String {
        switch self {
        case .connection: return "connection"
        case .busy(_, let reason): return reason.metricLabel
        case .signing: return "signing"
        case .shutDown: return "shutdown"
        }
    }
}
