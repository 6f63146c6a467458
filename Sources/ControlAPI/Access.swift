/// Who may call a route: each row of `ControlAPI.routes` names one level.
/// Each level is a line of `Caller.may(_:)`; the switches are exhaustive, so
/// the compiler points at every decision a new level needs.
enum Access: String, Sendable, Hashable, CaseIterable {
    /// Anyone, without a credential: health checks (Docker's HEALTHCHECK,
    /// load balancers), Prometheus and the pictures' signed links. Never
    /// held back.
    case `public`
    /// Anyone, but what the body carries is a credential (pairing's
    /// one-time code): a wrong one counts as a failed authentication, and
    /// an address held back for guessing cannot use even the right one
    /// until its wait is over.
    case pairingCode
    /// What the unmodified seed app calls (registration, its Live Activity
    /// tokens, its own settings) and the printers' view: a credential (the
    /// admin API token or a phone's own), or a client on a trusted network
    /// (API_TRUSTED_NETWORKS), which the seed app needs as it sends none.
    case token
    /// Acting on printers and reading phones' data: a phone's own credential
    /// or the admin token, never only a trusted network.
    case credential
    /// The agent's own pages (the status page): the admin token, or HA's
    /// ingress proxy in the add-on (HA's own sign-in stands before it).
    case admin
}

extension Access {
    /// Anyone may call it, with or without a credential.
    var admitsAnyone: Bool { self == .public || self == .pairingCode }
}

/// What a request shows of its sender, worked out once per request.
enum Caller: Hashable, Sendable {
    /// No valid credential, from outside the trusted networks.
    case stranger
    /// From a trusted network (API_TRUSTED_NETWORKS); it sent no valid credential.
    case trustedNetwork
    /// Home Assistant's ingress proxy (the add-on's Supervisor address).
    case ingressProxy
    /// A phone's own credential (not revoked): its id, and the device it registered.
    case phone(credentialID: String, deviceID: String?)
    /// Sent the admin API token (API_TOKEN).
    case tokenHolder
    /// The API runs without a token (--no-api-auth): every caller counts.
    case unguarded

    func may(_ access: Access) -> Bool {
        switch access {
        case .public, .pairingCode: return true
        case .token:
            switch self {
            case .stranger: return false
            case .trustedNetwork, .ingressProxy, .phone, .tokenHolder, .unguarded: return true
            }
        case .credential:
            switch self {
            case .stranger, .trustedNetwork, .ingressProxy: return false
            case .phone, .tokenHolder, .unguarded: return true
            }
        case .admin:
            switch self {
            case .stranger, .trustedNetwork, .phone: return false
            case .ingressProxy, .tokenHolder, .unguarded: return true
            }
        }
    }

    /// Whether the caller may act for device `deviceID` (its settings, its
    /// tokens, its alerts): a phone only for the device it registered; the
    /// others as their level allows. The route table asks for every row
    /// that names a device (`Route.device`).
    func mayActFor(device deviceID: String) -> Bool {
        if case .phone(_, let own) = self { return own == deviceID }
        return true
    }
}

extension Caller: CustomStringConvertible {
    /// For the log: who asked, never the credential.
    var description: String {
        switch self {
        case .stranger: "stranger"
        case .trustedNetwork: "trusted network"
        case .ingressProxy: "ingress proxy"
        case .phone(let id, _): "phone \(id)"
        case .tokenHolder: "api token"
        case .unguarded: "no auth"
        }
    }
}

/// Where a request names the device it acts for, when it does: the table
/// lets a phone through only for its own device (403 otherwise), before the
/// handler runs, for every row that has one. A `:deviceId` in the path is
/// one without being written (`Route.init`), so a new route cannot forget it.
enum DeviceReference: Hashable, Sendable {
    /// A parameter of the path.
    case path(String)
    /// A parameter of the query string.
    case query(String)
    /// A string field of the JSON body (absent: the request names no device).
    case body(String)
}

/// How a refused caller is asked for a credential (a 401's `WWW-Authenticate`).
enum AuthChallenge: Sendable, Hashable {
    /// The API's clients: a JSON error and `WWW-Authenticate: Bearer`.
    case bearer
    /// A browser, which asks its user for credentials only on a Basic
    /// challenge: a line of text and `WWW-Authenticate: Basic`.
    case basic
}
