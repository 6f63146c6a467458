import PrintBridgeCore

/// The APNs provider token (JWT) and when to make a new one.
///
/// Apple wants a token no older than an hour and refuses new ones more often
/// than every 20 minutes (TooManyProviderTokenUpdates). So: reuse the token
/// for 50 minutes, then renew; renew early only when APNs says it expired,
/// and only if the current one is at least 20 minutes old.
public struct ProviderTokenPolicy: Hashable, Sendable {
    public var renewAfter: Double = 50 * 60
    public var minimumAge: Double = 20 * 60

    public init(renewAfter: Double = 50 * 60, minimumAge: Double = 20 * 60) {
        self.renewAfter = renewAfter
        self.minimumAge = minimumAge
    }
}

/// Makes and caches provider tokens on an injected clock.
public struct ProviderTokenCache: Sendable {
    public let teamID: String
    public let keyID: String
    public let policy: ProviderTokenPolicy
    private let key: APNsSigningKey
    public private(set) var current: (token: String, issuedAt: EpochTime)?
    /// `authorization: bearer <token>` for the current token, made once a
    /// token rather than once a request (~200 bytes copied and allocated).
    private var currentAuthorization = (token: "", value: "")
    /// How many tokens have been made (for metrics and tests).
    public private(set) var renewals = 0

    public init(teamID: String, keyID: String, key: APNsSigningKey, policy: ProviderTokenPolicy = .init()) {
        self.teamID = teamID
        self.keyID = keyID
        self.key = key
        self.policy = policy
    }

    /// The token to use at `now`: the cached one until it is `renewAfter` old.
    public mutating func token(at now: EpochTime) -> String? {
        if let current, now - current.issuedAt < policy.renewAfter, now >= current.issuedAt {
            return current.token
        }
        return issue(at: now)
    }

    /// The `authorization` header's value for the token to use at `now`.
    public mutating func authorization(at now: EpochTime) -> String? {
        guard let token = token(at: now) else { return nil }
        // The same token is the same string storage: compared at once.
        if token != currentAuthorization.token { currentAuthorization = (token, "bearer " + token) }
        return currentAuthorization.value
    }

    /// After APNs answered ExpiredProviderToken: a new token if the current one
    /// is old enough to replace, else nil (renewing sooner is refused by Apple).
    public mutating func renewAfterExpiry(at now: EpochTime) -> String? {
        if let current, now - current.issuedAt < policy.minimumAge, now >= current.issuedAt { return nil }
        return issue(at: now)
    }

    private mutating func issue(at now: EpochTime) -> String? {
        let header = Base64.urlEncode(Array(#"{"alg":"ES256","kid":"\#(keyID)"}"#.utf8))
        let claims = Base64.urlEncode(Array(#"{"iss":"\#(teamID)","iat":\#(now.wholeSeconds)}"#.utf8))
        let signingInput = header + "." + claims
        guard let signature = key.sign(Array(signingInput.utf8)) else { return nil }
        let token = signingInput + "." + Base64.urlEncode(signature)
        current = (token, EpochTime(seconds: Double(now.wholeSeconds)))
        renewals += 1
        return token
    }
}
