@testable import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Testing

/// The API's routes as one table: docs/openapi.json is held to its rows,
/// and 404, 405 with `Allow` and the access checks come from them.
@Suite struct RouteTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Every row is an operation of docs/openapi.json (path with `{name}`,
    /// method, path parameters, and `security: []` exactly for public rows),
    /// and every operation there is a row.
    @Test func everyRowIsDocumentedAndEveryDocumentedOperationIsARow() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.root + "/docs/openapi.json"))
        let paths = try #require(try JSONParser.parse(Array(data))["paths"]?.objectValue)
        var documented: [String: String] = [:]
        for (path, item) in paths {
            for (method, operation) in item.objectValue ?? [:] where HTTPMethod(rawValue: method.uppercased()) != nil {
                let all = (item["parameters"]?.arrayValue ?? []) + (operation["parameters"]?.arrayValue ?? [])
                let parameters = all.filter { $0["in"]?.stringValue == "path" }.compactMap { $0["name"]?.stringValue }
                // Public: `security: []` (pairingCode: `security: []` and that `x-access`); else the level in
                // PrintBridge's `x-access` (token, credential, admin).
                let level = operation["x-access"]?.stringValue
                let access = operation["security"]?.arrayValue?.isEmpty == true && level == nil
                    ? Access.public : Access(rawValue: level ?? "missing")
                documented["\(method.uppercased()) \(path)"] =
                    "\(access.map { "\($0)" } ?? "no x-access") \(parameters.sorted()) device: \(Self.device(named: operation, all))"
            }
        }
        var rows: [String: String] = [:]
        for route in ControlAPI.routes {
            let parameters = route.segments.compactMap { segment -> String? in
                if case .parameter(let name) = segment { name } else { nil }
            }
            rows["\(route.method.rawValue) \(route.openAPIPath)"] =
                "\(route.access) \(parameters.sorted()) device: \(route.device.map { "\($0)" } ?? "none")"
        }
        #expect(rows.count == ControlAPI.routes.count, "a row twice")
        for (operation, description) in documented where rows[operation] != description {
            Issue.record("docs/openapi.json: \(operation) (\(description)) is not a row (\(rows[operation] ?? "none"))")
        }
        for (row, description) in rows where documented[row] == nil {
            Issue.record("the row \(row) (\(description)) is not in docs/openapi.json")
        }
    }

    /// Where an operation of docs/openapi.json names a device: its path's
    /// `deviceId`, a query parameter `device`, or a `deviceId` in its JSON
    /// body. Every such row must say so (`Route.device`), so the table
    /// checks a phone's ownership before the handler runs.
    static func device(named operation: JSONValue, _ parameters: [JSONValue]) -> String {
        if parameters.contains(where: { $0["in"]?.stringValue == "path" && $0["name"]?.stringValue == "deviceId" }) {
            return "\(DeviceReference.path("deviceId"))"
        }
        if parameters.contains(where: { $0["in"]?.stringValue == "query" && $0["name"]?.stringValue == "device" }) {
            return "\(DeviceReference.query("device"))"
        }
        let body = operation["requestBody"]?["content"]?["application/json"]?["schema"]?["properties"]?.objectValue
        return body?["deviceId"] != nil ? "\(DeviceReference.body("deviceId"))" : "none"
    }

    @Test func theAPITableIsValid() {
        #expect(RouteTable.problems(ControlAPI.routes).isEmpty, "\(RouteTable.problems(ControlAPI.routes))")
    }

    @Test func aBadTableIsDescribed() {
        let problems = RouteTable.problems([
            Route(.get, "/a/:id", .token, 1), Route(.delete, "/a/:name", .token, 2), Route(.get, "/a/:x", .token, 3),
            Route(.get, "b", .token, 4), Route(.get, "/c/:", .token, 5), Route(.get, "/d/:x/:x", .token, 6),
        ])
        #expect(problems == [
            "/a/:name and /a/:id are one path with two spellings",
            "/a/:x and /a/:id are one path with two spellings", "GET /a/:x twice",
            "b: a path starts with / and has no empty segments",
            "/c/:: a parameter without a name",
            "/d/:x/:x: a parameter name twice",
        ])
    }

    static let toy = RouteTable<String>([
        Route(.get, "/", .token, "page"),
        Route(.get, "/things/:id", .token, "get thing"),
        Route(.post, "/things/new", .token, "new thing"),
        Route(.delete, "/things/:id", .token, "delete thing"),
        Route(.get, "/things/:id/parts/:part", .token, "a part"),
        Route(.get, "/things/top/parts/:part", .token, "a top part"),
    ])

    func resolve(_ method: String, _ path: String) -> String {
        switch Self.toy.resolve(method: method, segments: path.split(separator: "/")) {
        case .found(let route, let parameters):
            return route.handler + parameters.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        case .wrongMethod(let allowed): return "405 " + allowed.map(\.rawValue).joined(separator: ", ")
        case .notFound: return "404"
        }
    }

    @Test func aLiteralBeatsAParameterAndParametersAreNamed() {
        #expect(resolve("GET", "/things/7") == "get thing id=7")
        #expect(resolve("POST", "/things/new") == "new thing")
        #expect(resolve("GET", "/things/new") == "405 POST", "the literal's path, not :id's")
        #expect(resolve("GET", "/things/top/parts/wheel") == "a top part part=wheel")
        #expect(resolve("GET", "/things/7/parts/wheel") == "a part id=7 part=wheel")
    }

    @Test func fourOhFiveListsEveryMethodOfThePathInTheTablesOrder() {
        #expect(resolve("PUT", "/things/7") == "405 GET, DELETE")
        #expect(resolve("get", "/things/7") == "405 GET, DELETE", "methods are case-sensitive")
        #expect(resolve("POST", "/") == "405 GET")
    }

    @Test func emptySegmentsChangeNothingAndUnknownPathsAreNotFound() {
        #expect(resolve("GET", "//things//7/") == "get thing id=7")
        #expect(resolve("GET", "") == "page")
        #expect(resolve("GET", "/things") == "404")
        #expect(resolve("GET", "/things/7/parts") == "404")
        #expect(resolve("GET", "/other/7") == "404")
        #expect(Self.toy.area(of: "/things/x/y".split(separator: "/")).count == 5)
        #expect(Self.toy.area(of: []).isEmpty, "/ is nobody's area")
    }

    @Test func whoMayCallWhat() {
        for caller in [Caller.trustedNetwork, .tokenHolder, .unguarded] {
            #expect(caller.may(.public) && caller.may(.token))
        }
        #expect(Caller.stranger.may(.public) && !Caller.stranger.may(.token))
    }
}

/// Today's answers, worked out from the table, as they were before it.
@Suite struct RouteAnswerTests {
    let api: ControlAPI

    init() throws {
        let directory = NSTemporaryDirectory() + "printbridge-routes-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        api = ControlAPI(
            store: try DeviceStore(directory: directory), apiToken: "route-token-0123456789",
            apns: .init(configured: true, bundleID: "b", production: false),
            metrics: AgentMetrics(apnsMode: "dry-run"), trustedNetworks: try TrustedNetworks(parsing: "10.0.0.0/8"),
            ingressProxy: try TrustedNetworks(parsing: "172.30.32.2/32"))
    }

    func answer(_ method: String, _ path: String, token: String? = nil, basic: String? = nil, from peer: String = "192.0.2.1")
        -> HTTPResponse
    {
        var headers = ["content-type": "application/json"]
        if let token { headers["authorization"] = "Bearer \(token)" }
        if let basic { headers["authorization"] = "Basic " + Data("me:\(basic)".utf8).base64EncodedString() }
        return api.handle(HTTPRequest(method: method, path: path, headers: headers, body: Array("{}".utf8),
                                      peer: TrustedNetworks.address(peer)))
    }

    func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.extraHeaders.first { $0.0 == name }?.1
    }

    /// Health and metrics answer anyone; their other methods are 405.
    @Test func publicRoutes() {
        #expect(answer("GET", "/healthz").status == 200)
        #expect(answer("GET", "/metrics").status == 200)
        let post = answer("POST", "/healthz")
        #expect(post.status == 405 && header(post, "Allow") == "GET" && post.body.contains("use GET"))
        #expect(answer("GET", "/healthz/more").status == 404)
        #expect(answer("GET", "/nothing").status == 404)
    }

    /// The page: a wrong method is a 405 before the token is asked for; a
    /// stranger is asked with a Basic challenge (a browser then asks its user).
    @Test func theStatusPage() {
        let post = answer("POST", "/")
        #expect(post.status == 405 && header(post, "Allow") == "GET")
        let stranger = answer("GET", "/")
        #expect(stranger.status == 401 && header(stranger, "WWW-Authenticate")?.hasPrefix("Basic") == true)
        #expect(stranger.contentType.hasPrefix("text/plain"))
        #expect(answer("GET", "/", basic: "route-token-0123456789").status == 200)
        // Issue 34: the page is the admin's: a trusted network (the seed app's) is not enough;
        // HA's ingress proxy (its own sign-in before it) is.
        #expect(answer("GET", "/", from: "10.1.2.3").status == 401)
        #expect(answer("GET", "/", from: "172.30.32.2").status == 200)
    }

    /// Under /api a stranger learns nothing: every path and method is a 401
    /// with a Bearer challenge; a caller with the token gets 404 and 405.
    @Test func underAPIAStrangerLearnsNothing() {
        for (method, path) in [("GET", "/api/nothing"), ("GET", "/api"), ("GET", "/api/devices/register"),
                               ("POST", "/api/devices/register"), ("PUT", "/api/printers")] {
            let refused = answer(method, path)
            #expect(refused.status == 401 && header(refused, "WWW-Authenticate") == "Bearer", "\(method) \(path)")
        }
        #expect(answer("GET", "/api/nothing", token: "route-token-0123456789").status == 404)
        #expect(answer("GET", "/api/nothing", token: "wrong").status == 401)
        let method = answer("DELETE", "/api/devices/register", token: "route-token-0123456789")
        #expect(method.status == 405 && header(method, "Allow") == "POST", "register's path, not :deviceId's")
        #expect(answer("GET", "/api/nothing", from: "10.9.9.9").status == 404)
        // Issue 48: a credential sent is judged by itself, on a trusted network too.
        #expect(answer("GET", "/api/config/apns/status", token: "wrong", from: "10.9.9.9").status == 401)
        #expect(answer("GET", "/api/config/apns/status", from: "10.9.9.9").status == 200)
        #expect(answer("GET", "/api/devices/by-printer/settings", token: "route-token-0123456789").status == 200)
    }
}
