import ControlAPI
@testable import DeviceStore
import Foundation
import FoundationNetworking
import PrintBridgeCore
import Synchronization
import Testing

/// The app's API through a real HTTP client against the server on 127.0.0.1.
@Suite struct ControlAPITests {
    static let apiToken = "test-api-token-0123456789"
    let server: HTTPServer
    let store: DeviceStore
    let phone = String(repeating: "ab", count: 32)
    let tablet = String(repeating: "cd", count: 32)

    init() throws {
        let directory = NSTemporaryDirectory() + "printbridge-api-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = try DeviceStore(directory: directory)
        let api = ControlAPI(
            store: store, apiToken: Self.apiToken,
            apns: .init(configured: true, bundleID: "com.samduncan.PrinterMonitor", production: false),
            printers: {
                var printer = PrinterSnapshot(prefix: "x1c")
                printer.rawStatus = "running"
                return [printer]
            })
        server = try HTTPServer(host: "127.0.0.1", port: 0) { api.handle($0) }
        try server.start()
    }

    struct Reply {
        var status: Int
        var json: [String: Any]
        var text: String
        var headers: [AnyHashable: Any]
    }

    func call(_ method: String, _ path: String, body: String? = nil, token: String? = apiToken) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        return Reply(
            status: http.statusCode, json: (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:],
            text: String(decoding: data, as: UTF8.self), headers: http.allHeaderFields)
    }

    /// The seed app's registration body (phase 4, DeviceRegistrationRequest).
    func registerBody(_ token: String, prefix: String = "x1c_00m09a350100123") -> String {
        #"{"apnsToken":"\#(token)","haUrl":"http://homeassistant.local:8123","printerPrefix":"\#(prefix)","printerName":"X1C"}"#
    }

    @Test func registeringTwiceUpdatesTheSameDevice() async throws {
        let first = try await call("POST", "/api/devices/register", body: registerBody(phone))
        #expect(first.status == 200)
        #expect(first.json["success"] as? Bool == true && first.json["message"] as? String == "Device registered")
        let id = try #require(first.json["deviceId"] as? String)
        let again = try await call("POST", "/api/devices/register", body: registerBody(phone))
        #expect(again.json["deviceId"] as? String == id && again.json["message"] as? String == "Device updated")
        #expect(try store.devices().count == 1)
    }

    /// The app re-registers (its exact body: apnsToken, haUrl, printerPrefix,
    /// printerName) when its user picks another printer: the alerts move.
    @Test func switchingPrintersInTheAppMovesThePhone() async throws {
        _ = try await call("POST", "/api/devices/register", body: registerBody(phone))
        let switched = #"{"apnsToken":"\#(phone)","haUrl":"http://homeassistant.local:8123","printerPrefix":"p1s_01p09c470200456","printerName":"P1S"}"#
        #expect(try await call("POST", "/api/devices/register", body: switched).status == 200)
        #expect((try await call("GET", "/api/devices/by-printer/x1c_00m09a350100123").json["devices"] as? [Any])?.count == 0)
        #expect((try await call("GET", "/api/devices/by-printer/p1s_01p09c470200456").json["devices"] as? [Any])?.count == 1)
        let device = try #require(try store.devices().first)
        #expect(device.printerPrefixes == ["p1s_01p09c470200456"] && device.printerName == "P1S")
        // Following several printers is an explicit extension, never an accident.
        let several = #"{"apnsToken":"\#(phone)","haUrl":"http://homeassistant.local:8123","printerPrefixes":["x1c_00m09a350100123","p1s_01p09c470200456"]}"#
        #expect(try await call("POST", "/api/devices/register", body: several).status == 200)
        #expect(try store.devices().first?.printerPrefixes.count == 2)
        let both = #"{"apnsToken":"\#(phone)","haUrl":"http://ha:8123","printerPrefix":"a","printerPrefixes":["b"]}"#
        #expect(try await call("POST", "/api/devices/register", body: both).status == 400)
        #expect(try store.devices().count == 1, "never a second device for one token")
    }

    @Test func settingsFromTheAppAreSaved() async throws {
        let id = try #require(try await call("POST", "/api/devices/register", body: registerBody(phone)).json["deviceId"] as? String)
        let saved = try await call("PATCH", "/api/devices/\(id)/settings", body: #"{"onStart":false,"onMilestone":false}"#)
        #expect(saved.status == 200 && saved.json["message"] as? String == "Settings updated")
        #expect(try store.devices()[0].preferences == NotificationPreferences(onStart: false, onMilestone: false))
        let wrongType = try await call("PATCH", "/api/devices/\(id)/settings", body: #"{"onStart":"no","colour":true}"#)
        #expect(wrongType.status == 400)
        let details = wrongType.json["details"] as? [String: [String]]
        #expect(details?["onStart"] == ["must be true or false"] && details?["colour"] == ["is not a setting"])
        #expect(try await call("PATCH", "/api/devices/nobody/settings", body: "{}").status == 404)
        // PrintBridge's switches for printer errors and "Ready to Remove".
        #expect(try await call("PATCH", "/api/devices/\(id)/settings", body: #"{"onPrinterError":false,"onBedCooled":false}"#).status == 200)
        #expect(try store.devices()[0].preferences
            == NotificationPreferences(onStart: false, onMilestone: false, onPrinterError: false, onBedCooled: false))
        let listed = try await call("GET", "/api/devices/by-printer/x1c_00m09a350100123")
        let row = (listed.json["devices"] as? [[String: Any]])?.first
        #expect(row?["on_printer_error"] as? Int == 0 && row?["on_bed_cooled"] as? Int == 0 && row?["on_complete"] as? Int == 1)
    }

    @Test func theBackgroundRefreshSwitchIsSavedAndListed() async throws {
        let id = try #require(try await call("POST", "/api/devices/register", body: registerBody(phone)).json["deviceId"] as? String)
        #expect(try store.devices()[0].preferences.backgroundRefresh, "on by default")
        let off = try await call("PATCH", "/api/devices/\(id)/settings", body: #"{"backgroundRefresh":false}"#)
        #expect(off.status == 200)
        #expect(try store.devices()[0].preferences == NotificationPreferences(backgroundRefresh: false))
        let listed = try await call("GET", "/api/devices/by-printer/x1c_00m09a350100123")
        let row = (listed.json["devices"] as? [[String: Any]])?.first
        #expect(row?["background_refresh"] as? Int == 0 && row?["on_complete"] as? Int == 1)
        let wrong = try await call("PATCH", "/api/devices/\(id)/settings", body: #"{"backgroundRefresh":1}"#)
        #expect(wrong.status == 400)
        #expect((wrong.json["details"] as? [String: [String]])?["backgroundRefresh"] == ["must be true or false"])
        #expect(try await call("PATCH", "/api/devices/\(id)/settings", body: #"{"backgroundRefresh":true}"#).status == 200)
        #expect(try store.devices()[0].preferences == .all)
    }

    @Test func aPhoneMaySayItsLanguage() async throws {
        let german = #"{"apnsToken":"\#(phone)","haUrl":"http://ha:8123","printerPrefix":"x1c","language":"de-CH"}"#
        #expect(try await call("POST", "/api/devices/register", body: german).status == 200)
        #expect(try store.devices()[0].language == "de-CH")
        let bad = try await call("POST", "/api/devices/register", body: #"{"apnsToken":"\#(tablet)","haUrl":"http://ha:8123","language":"C.UTF-8"}"#)
        #expect(bad.status == 400)
        #expect((bad.json["details"] as? [String: [String]])?["language"] == ["must be a language tag such as \"de\" or \"fr-CA\""])
        #expect(try store.devices().count == 1, "nothing registered from a bad body")
    }

    @Test func activityTokensAsTheSeedAppSendsThem() async throws {
        let id = try #require(try await call("POST", "/api/devices/register", body: registerBody(phone)).json["deviceId"] as? String)
        _ = try await call("POST", "/api/devices/register", body: registerBody(String(repeating: "ba", count: 32)))
        // Two phones on one printer each start an activity: the app's exact body, no device id.
        let tokens = [String(repeating: "cd", count: 40), String(repeating: "dc", count: 40)]
        for token in tokens {
            let reply = try await call("POST", "/api/devices/activity-token",
                                       body: #"{"activityToken":"\#(token)","printerPrefix":"x1c_00m09a350100123"}"#)
            #expect(reply.status == 200 && reply.json["success"] as? Bool == true)
        }
        #expect(try store.devices().allSatisfy { $0.activityTokens.isEmpty }, "never pinned on the phone that registered last")
        #expect(Set(try store.devicesAndActivities().compactMap { $0.activityTokens["x1c_00m09a350100123"] }) == Set(tokens))
        // PrintBridge's extension: a device id says whose activity it is.
        let mine = String(repeating: "ce", count: 40)
        let attributed = try await call("POST", "/api/devices/activity-token",
                                        body: #"{"activityToken":"\#(mine)","printerPrefix":"x1c_00m09a350100123","deviceId":"\#(id)"}"#)
        #expect(attributed.status == 200)
        #expect(try store.devices()[0].activityTokens["x1c_00m09a350100123"] == mine)
        let nobody = try await call("POST", "/api/devices/activity-token",
                                    body: #"{"activityToken":"\#(mine)","printerPrefix":"x1c_00m09a350100123","deviceId":"nobody"}"#)
        #expect(nobody.status == 404)
        let pushToStart = try await call("POST", "/api/devices/\(id)/push-to-start-token",
                                         body: #"{"pushToStartToken":"\#(String(repeating: "ef", count: 40))"}"#)
        #expect(pushToStart.status == 200)
        #expect(try store.devices()[0].pushToStartToken?.count == 80)
        let unknown = try await call("POST", "/api/devices/nobody/push-to-start-token",
                                     body: #"{"pushToStartToken":"\#(String(repeating: "ef", count: 40))"}"#)
        #expect(unknown.status == 404)
        let badToken = try await call("POST", "/api/devices/\(id)/push-to-start-token", body: #"{"pushToStartToken":"zz"}"#)
        #expect(badToken.status == 400 && (badToken.json["details"] as? [String: [String]])?["pushToStartToken"] != nil)
        let badActivity = try await call("POST", "/api/devices/activity-token", body: #"{"printerPrefix":"x1c_00m09a350100123"}"#)
        #expect((badActivity.json["details"] as? [String: [String]])?["activityToken"] == ["is required"])
    }

    /// The seed app's exact activity-token body (Tests/DaemonTests/Fixtures/seed-app):
    /// the token is kept for its printer until its activity can no longer be
    /// alive (iOS's 8 hours plus the dismissal window), then dropped.
    @Test func anActivityTokenExpiresWhenItsActivityCannotBeAlive() throws {
        let directory = NSTemporaryDirectory() + "printbridge-api-expiry-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let clock = ManualClock(EpochTime(seconds: 1_795_165_200))
        let store = try DeviceStore(directory: directory, clock: clock)
        let api = ControlAPI(store: store, apiToken: nil, apns: .init(configured: true, bundleID: "b", production: false))
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("DaemonTests/Fixtures/seed-app")
        let body = try Data(contentsOf: fixtures.appendingPathComponent("activity-token-phone-a.json"))
        let reply = api.handle(HTTPRequest(method: "POST", path: "/api/devices/activity-token", headers: ["content-type": "application/json"], body: Array(body)))
        #expect(reply.status == 200)
        let token = try #require((try JSONSerialization.jsonObject(with: body) as? [String: String])?["activityToken"])
        #expect(try store.devicesAndActivities().compactMap { $0.activityTokens["x1c_00m09a350100123"] } == [token])
        clock.set(clock.now() + 8 * 3600)
        #expect(try store.devicesAndActivities().count == 1, "8 hours in: still alive (and then dismissed)")
        let rest: Double = DeviceStore.activityLifetime - 8 * 3600 + 1
        clock.set(clock.now() + rest)
        #expect(try store.devicesAndActivities().isEmpty, "past 8 h plus the dismissal window: gone")
    }

    /// A store that fails behind a request: the app gets the 500, and the
    /// failure (request, store path, SQLite's reason) reaches the log.
    @Test func aStoreFailureBehindA500IsLogged() throws {
        let directory = NSTemporaryDirectory() + "printbridge-api-broken-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try DeviceStore(directory: directory)
        try store.database.execute("PRAGMA query_only = 1")  // every write now fails
        let logged = Mutex<[String]>([])
        let api = ControlAPI(
            store: store, apiToken: nil, apns: .init(configured: true, bundleID: "b", production: false),
            storeFailed: { line in logged.withLock { $0.append(line) } })
        let reply = api.handle(HTTPRequest(
            method: "POST", path: "/api/devices/register", headers: ["content-type": "application/json"], body: Array(registerBody(phone).utf8)))
        #expect(reply.status == 500)
        let lines = logged.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("POST /api/devices/register") == true, "\(lines)")
        #expect(lines.first?.contains(store.path) == true && lines.first?.contains("readonly") == true, "\(lines)")
    }

    @Test func byPrinterNeverShowsAWholeToken() async throws {
        _ = try await call("POST", "/api/devices/register", body: registerBody(phone))
        let reply = try await call("GET", "/api/devices/by-printer/x1c_00m09a350100123")
        #expect(reply.status == 200)
        let devices = reply.json["devices"] as? [[String: Any]]
        #expect(devices?.count == 1)
        #expect(devices?.first?["apns_token"] as? String == "ababab…abab")
        #expect(!reply.text.contains(phone))
        #expect(try await call("GET", "/api/devices/by-printer/other").json["devices"] as? [Any] != nil)
    }

    @Test func unregistering() async throws {
        let id = try #require(try await call("POST", "/api/devices/register", body: registerBody(phone)).json["deviceId"] as? String)
        #expect(try await call("DELETE", "/api/devices/\(id)").json["message"] as? String == "Device unregistered")
        #expect(try await call("DELETE", "/api/devices/\(id)").status == 404)
    }

    @Test func everyAPIRouteNeedsTheToken() async throws {
        #expect(try await call("GET", "/api/config/apns/status", token: nil).status == 401)
        let wrong = try await call("POST", "/api/devices/register", body: registerBody(phone), token: "guess")
        #expect(wrong.status == 401 && wrong.json["success"] as? Bool == false)
        #expect(try store.devices().isEmpty)
        #expect(try await call("GET", "/healthz", token: nil).status == 200)
        let status = try await call("GET", "/api/config/apns/status")
        #expect(status.json["configured"] as? Bool == true && status.json["bundleId"] as? String == "com.samduncan.PrinterMonitor")
        // The seed's init call: APNs was configured at start-up, so it says so.
        let initialised = try await call("POST", "/api/config/apns/init")
        #expect(initialised.status == 200 && initialised.json["success"] as? Bool == true)
        #expect(try await call("POST", "/api/config/apns/init", token: nil).status == 401)
        #expect((try await call("GET", "/api/printers").json["printers"] as? [Any])?.count == 1)
    }

    @Test func badRequestsAreClearErrors() async throws {
        let malformed = try await call("POST", "/api/devices/register", body: "{not json")
        #expect(malformed.status == 400 && (malformed.json["details"] as? [String: [String]])?["body"] != nil)
        let badToken = try await call("POST", "/api/devices/register", body: #"{"apnsToken":"xyz","haUrl":"ftp://x"}"#)
        let details = badToken.json["details"] as? [String: [String]]
        #expect(badToken.status == 400 && details?["apnsToken"] != nil && details?["haUrl"] != nil)
        let missing = try await call("POST", "/api/devices/register", body: "{}")
        #expect((missing.json["details"] as? [String: [String]])?["apnsToken"] == ["is required"])
        let huge = try await call("POST", "/api/devices/register", body: "{\"x\":\"" + String(repeating: "a", count: 70_000) + "\"}")
        #expect(huge.status == 413)
        #expect(try await call("GET", "/api/nothing").status == 404)
        let method = try await call("GET", "/api/devices/register")
        #expect(method.status == 405)
        #expect(method.headers["Allow"] as? String == "POST")
    }
}

/// docs/openapi.json describes exactly the routes the server answers.
@Suite struct OpenAPIAgreementTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test func everyDocumentedRouteIsServedAndEveryServedRouteIsDocumented() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.root + "/docs/openapi.json"))
        let spec = try JSONParser.parse(Array(data))
        let paths = try #require(spec["paths"]?.objectValue)
        let directory = NSTemporaryDirectory() + "printbridge-openapi-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let api = ControlAPI(store: try DeviceStore(directory: directory), apiToken: nil,
                             apns: .init(configured: false, bundleID: "x.y", production: false),
                             metrics: AgentMetrics(apnsMode: "dry-run"))
        // Without APNs (a dry run) the seed's init call is a clear 400, as the seed's was.
        let initialise = api.handle(HTTPRequest(method: "POST", path: "/api/config/apns/init"))
        #expect(initialise.status == 400 && initialise.body.contains("APNS_TEAM_ID"))
        var documented: Set<String> = []
        for (path, operations) in paths {
            let concrete = path.replacingOccurrences(of: "{deviceId}", with: "some-device").replacingOccurrences(of: "{prefix}", with: "x1c")
            for method in (operations.objectValue ?? [:]).keys {
                documented.insert("\(method.uppercased()) \(path)")
                let response = api.handle(HTTPRequest(
                    method: method.uppercased(), path: concrete, headers: ["content-type": "application/json"], body: Array("{}".utf8)))
                #expect(response.status != 405, "\(method) \(path) is documented but not served")
                #expect(!(response.status == 404 && response.body.contains("Not found")), "\(method) \(path) is documented but unknown")
            }
        }
        // What the server answers, as the router knows it.
        let served: Set<String> = [
            "GET /healthz", "GET /metrics", "POST /api/devices/register", "PATCH /api/devices/{deviceId}/settings",
            "DELETE /api/devices/{deviceId}", "GET /api/devices/{deviceId}", "POST /api/devices/{deviceId}/test-push", "GET /api/devices/by-printer/{prefix}", "POST /api/devices/activity-token",
            "POST /api/devices/{deviceId}/push-to-start-token", "GET /api/config/apns/status", "POST /api/config/apns/init",
            "GET /api/printers", "GET /api/printers/{prefix}/history", "GET /api/history", "GET /api/statistics", "POST /api/printers/{prefix}/actions/{action}",
            "GET /api/notifications", "GET /api/snapshots/{name}", "GET /", "POST /api/pair",
            "DELETE /api/devices/{deviceId}/credential", "POST /pairing-code", "POST /devices/{deviceId}/revoke",
            "GET /api/printers/{prefix}/channel", "POST /api/devices/{deviceId}/activity-channel",
            "POST /api/devices/{deviceId}/notifications/{notificationId}/opened",
        ]
        #expect(documented == served)
        // And nothing undocumented answers: other methods on documented paths are 405.
        for route in served {
            let parts = route.split(separator: " ")
            let path = String(parts[1]).replacingOccurrences(of: "{deviceId}", with: "d").replacingOccurrences(of: "{prefix}", with: "p")
            for method in ["GET", "POST", "PATCH", "DELETE", "PUT"] where !served.contains("\(method) \(parts[1])") {
                let status = api.handle(HTTPRequest(method: method, path: path)).status
                #expect(status == 405 || status == 404, "\(method) \(path) answered \(status)")
            }
        }
    }
}
