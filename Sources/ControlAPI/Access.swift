/// Who may call a route: each row of `ControlAPI.routes` names one level.
///
/// Issue 34 adds a phone's own credential and an admin credential (today's
/// API token), and narrows the trusted networks to what the unmodified seed
/// app needs (registration and its own settings). Each becomes a case here
/// and a line of `Caller.may(_:)`; the switches are exhaustive, so the
/// compiler points at every decision a new level needs.
enum Access: String, Sendable, Hashable, CaseIterable {
    /// Anyone, without a credential: health checks (Docker's HEALTHCHECK,
    /// load balancers) and Prometheus, which carry none.
    case `public`
    /// The API token (Bearer, or the password of HTTP Basic from a browser),
    /// or a client on a trusted network (API_TRUSTED_NETWORKS); anyone when
    /// the API runs without a token (--no-api-auth).
    case token
}

/// What a request shows of its sender, worked out once per request.
enum Caller: Hashable, Sendable {
    /// No token, or a wrong one, from outside the trusted networks.
    case stranger
    /// From a trusted network (API_TRUSTED_NETWORKS); it sent no right token.
    case trustedNetwork
    /// Sent the API token.
    case tokenHolder
    /// The API runs without a token (--no-api-auth): every caller counts.
    case unguarded

    func may(_ access: Access) -> Bool {
        switch access {
        case .public: return true
        case .token:
            switch self {
            case .stranger: return false
            case .trustedNetwork, .tokenHolder, .unguarded: return true
            }
        }
    }
}

extension Caller: CustomStringConvertible {
    /// For the log: who asked, never the credential.
    var description: String {
        switch self {
        case .stranger: "stranger"
        case .trustedNetwork: "trusted network"
        case .tokenHolder: "api token"
        case .unguarded: "no auth"
        }
    }
}

/// How a refused caller is asked for a credential (a 401's `WWW-Authenticate`).
enum AuthChallenge: Sendable, Hashable {
    /// The API's clients: a JSON error and `WWW-Authenticate: Bearer`.
    case bearer
    /// A browser, which asks its user for credentials only on a Basic
    /// challenge: a line of text and `WWW-Authenticate: Basic`.
    case basic
}
