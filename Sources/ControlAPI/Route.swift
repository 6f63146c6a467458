/// The methods the API's routes use.
enum HTTPMethod: String, Sendable, Hashable, CaseIterable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
}

/// One row of a route table: a method, a path whose `:name` segments are
/// parameters, who may call it, how a refused caller is asked for a
/// credential, and the handler. 404, 405 with `Allow`, the access checks and
/// the OpenAPI check are worked out from the rows (`RouteTable`).
struct Route<Handler: Sendable>: Sendable {
    enum Segment: Hashable, Sendable {
        case literal(String)
        case parameter(String)
    }

    let method: HTTPMethod
    /// As written in the table, e.g. `/api/devices/:deviceId/settings`.
    let path: String
    let access: Access
    let challenge: AuthChallenge
    /// Where the request names the device it acts for (a phone may act only
    /// for its own): `device:` as given, else the path's `:deviceId`.
    let device: DeviceReference?
    let handler: Handler
    let segments: [Segment]

    /// The path parameter that names a device wherever it appears.
    static var deviceParameter: String { "deviceId" }

    init(
        _ method: HTTPMethod, _ path: String, _ access: Access, challenge: AuthChallenge = .bearer,
        device: DeviceReference? = nil, _ handler: Handler
    ) {
        self.method = method
        self.path = path
        self.access = access
        self.challenge = challenge
        self.handler = handler
        segments = path.split(separator: "/").map { part in
            part.first == ":" ? .parameter(String(part.dropFirst())) : .literal(String(part))
        }
        self.device = device ?? (segments.contains(.parameter(Self.deviceParameter)) ? .path(Self.deviceParameter) : nil)
    }

    /// The path as OpenAPI writes it: `{name}` for `:name`.
    var openAPIPath: String {
        "/" + segments.map { segment in
            switch segment {
            case .literal(let text): text
            case .parameter(let name): "{\(name)}"
            }
        }.joined(separator: "/")
    }

    /// The path's shape: its literals, parameters without their names.
    var shape: [String?] {
        segments.map { segment in
            if case .literal(let text) = segment { text } else { nil }
        }
    }
}

/// A request as a route's handler gets it: the request and the path's parameters by name.
struct RouteCall: Sendable {
    let request: HTTPRequest
    let parameters: [String: String]
    /// Who sent it (as the row's access admitted).
    var caller: Caller = .unguarded

    /// The parameter `name` of the row's path. A name the path lacks is a
    /// mistake in the table, which that route's tests meet at once.
    subscript(_ name: String) -> String {
        guard let value = parameters[name] else { preconditionFailure("the route has no parameter :\(name)") }
        return value
    }
}
