/// The lookups a route table answers: which row serves a request, which
/// methods a path has (405's `Allow`), and which rows share a path's first
/// segment (the API's area, whose strangers learn nothing of what is there).
///
/// Paths are split on `/` with empty segments left out (a trailing or
/// doubled slash changes nothing) and are not percent-decoded. Where two
/// rows' paths fit a request, the one with a literal at the first segment
/// where they differ wins (`/api/devices/register` over
/// `/api/devices/:deviceId`), as in Hummingbird's trie.
struct RouteTable<Handler: Sendable>: Sendable {
    enum Resolution {
        case found(Route<Handler>, parameters: [String: String])
        /// The path is a row's, but not with this method: the methods it has, in the table's order.
        case wrongMethod(allowed: [HTTPMethod])
        case notFound
    }

    /// The rows of one path: its segments and a row per method.
    private struct Endpoint: Sendable {
        var segments: [Route<Handler>.Segment]
        var routes: [Route<Handler>]
    }

    let routes: [Route<Handler>]
    private let endpoints: [Endpoint]

    init(_ routes: [Route<Handler>]) {
        self.routes = routes
        var endpoints: [Endpoint] = []
        for route in routes {
            if let index = endpoints.firstIndex(where: { $0.routes[0].shape == route.shape }) {
                endpoints[index].routes.append(route)
            } else {
                endpoints.append(Endpoint(segments: route.segments, routes: [route]))
            }
        }
        self.endpoints = endpoints
        assert(Self.problems(routes).isEmpty, "\(Self.problems(routes))")
    }

    func resolve(method: String, segments: [Substring]) -> Resolution {
        var best: Endpoint?
        for endpoint in endpoints where Self.fits(endpoint.segments, segments) {
            if let current = best, !Self.isMoreSpecific(endpoint.segments, than: current.segments) { continue }
            best = endpoint
        }
        guard let endpoint = best else { return .notFound }
        guard let route = endpoint.routes.first(where: { $0.method.rawValue == method }) else {
            return .wrongMethod(allowed: endpoint.routes.map(\.method))
        }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(route.segments, segments) {
            if case .parameter(let name) = segment { parameters[name] = String(value) }
        }
        return .found(route, parameters: parameters)
    }

    /// The rows whose path begins with the request's first segment (none for `/`).
    func area(of segments: [Substring]) -> [Route<Handler>] {
        guard let first = segments.first else { return [] }
        return routes.filter { $0.segments.first == .literal(String(first)) }
    }

    private static func fits(_ pattern: [Route<Handler>.Segment], _ segments: [Substring]) -> Bool {
        guard pattern.count == segments.count else { return false }
        for (segment, value) in zip(pattern, segments) {
            if case .literal(let text) = segment, text != value { return false }
        }
        return true
    }

    /// Of two patterns that fit the same request: a literal beats a parameter
    /// at the first segment where they differ.
    private static func isMoreSpecific(_ lhs: [Route<Handler>.Segment], than rhs: [Route<Handler>.Segment]) -> Bool {
        for (left, right) in zip(lhs, rhs) {
            switch (left, right) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }

    /// What is wrong with a table, in words (empty when nothing): paths not
    /// starting with `/` or with empty segments or parameter names, a name
    /// twice in one path, one path spelt with two sets of parameter names,
    /// a method twice on one path.
    static func problems(_ routes: [Route<Handler>]) -> [String] {
        var problems: [String] = []
        var spelling: [[String?]: String] = [:]
        var seen: Set<String> = []
        for route in routes {
            let names = route.segments.compactMap { segment -> String? in
                if case .parameter(let name) = segment { name } else { nil }
            }
            if !route.path.hasPrefix("/") || route.path.contains("//") || (route.path.hasSuffix("/") && route.path != "/") {
                problems.append("\(route.path): a path starts with / and has no empty segments")
            }
            if names.contains(where: \.isEmpty) { problems.append("\(route.path): a parameter without a name") }
            if Set(names).count != names.count { problems.append("\(route.path): a parameter name twice") }
            if let other = spelling[route.shape], other != route.path {
                problems.append("\(route.path) and \(other) are one path with two spellings")
            }
            spelling[route.shape] = spelling[route.shape] ?? route.path
            let key = "\(route.method.rawValue) \(route.shape.map { $0 ?? ":" })"
            if !seen.insert(key).inserted { problems.append("\(route.method.rawValue) \(route.path) twice") }
        }
        return problems
    }
}
