@testable import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Testing

/// Issue 48: the API as a hostile neighbour, another phone and a malicious
/// web page try it, one test per probe that got through before (each fails
/// without its fix), with the throttle's time given by hand.
@Suite struct HostileCallerTests: DirectCalls {
    static let adminToken = "hostile-admin-token-0123456789"
    static let printer = "x1c_00m09a350100123"
    let store: DeviceStore
    let api: ControlAPI
    let clock = AuthThrottleTests.Clock()
    /// The buttons pressed in "HA".
    let presses = Recorded()

    init() throws {
        store = try Self.temporaryStore("hostile")
        let presses = self.presses
        api = ControlAPI(
            store: store, apiToken: Self.adminToken, apns: .init(configured: true, bundleID: "b", production: false),
            printers: {
                var printer = PrinterSnapshot(prefix: Self.printer)
                printer.rawStatus = "running"
                return [printer]
            },
            trustedNetworks: try TrustedNetworks(parsing: "192.168.1.0/24"),
            pressButton: { action, prefix, done in
                presses.append("\(prefix) \(action.rawValue)")
                Thread.detachNewThread { done(.noButton) }
            },
            ingressProxy: try TrustedNetworks(parsing: "172.30.32.2/32"),
            authThrottle: AuthThrottle(clock: clock.read),
            pairing: PairingOffer { .init(code: "ABCD-EFGH", url: "https://192.168.1.20:3000", fingerprint: nil, png: [0x89], minutes: 10) })
    }

    func activityTokens() throws -> [String: String] {
        var tokens: [String: String] = [:]
        for device in try store.devicesAndActivities() { tokens[device.id] = device.activityTokens[Self.printer] }
        return tokens
    }

    // MARK: 1. another phone's activity

    @Test func aPhoneCannotReplaceAnotherPhonesLiveActivityToken() throws {
        let sam = try pairedPhone("aa"), kim = try pairedPhone("bb")
        let kims = String(repeating: "cd", count: 40), sams = String(repeating: "ef", count: 40)
        #expect(send("POST", "/api/devices/activity-token", body: #"{"activityToken":"\#(kims)","printerPrefix":"\#(Self.printer)","deviceId":"\#(kim.device)"}"#,
                     bearer: kim.credential).status == 200)
        let takeover = send("POST", "/api/devices/activity-token",
                            body: #"{"activityToken":"\#(sams)","printerPrefix":"\#(Self.printer)","deviceId":"\#(kim.device)"}"#, bearer: sam.credential)
        #expect(takeover.status == 403, "\(takeover.body)")
        #expect(try activityTokens()[kim.device] == kims, "Kim's activity still updates")
        // Its own, named or not, as before; the admin for anyone.
        #expect(send("POST", "/api/devices/activity-token", body: #"{"activityToken":"\#(sams)","printerPrefix":"\#(Self.printer)","deviceId":"\#(sam.device)"}"#,
                     bearer: sam.credential).status == 200)
        #expect(send("POST", "/api/devices/activity-token", body: #"{"activityToken":"\#(String(repeating: "01", count: 40))","printerPrefix":"\#(Self.printer)"}"#,
                     bearer: sam.credential).status == 200)
        #expect(try activityTokens()[sam.device] == sams)
        // by-printer no longer hands a phone the others' ids.
        let listed = json(send("GET", "/api/devices/by-printer/\(Self.printer)", bearer: sam.credential))["devices"] as? [[String: Any]]
        #expect(listed?.compactMap { $0["id"] as? String } == [sam.device])
        let all = json(send("GET", "/api/devices/by-printer/\(Self.printer)", bearer: Self.adminToken))["devices"] as? [[String: Any]]
        #expect(Set(all?.compactMap { $0["id"] as? String } ?? []) == [sam.device, kim.device])
        // Every route naming a device answers the same for another phone's.
        #expect(send("GET", "/api/notifications", query: "device=\(kim.device)", bearer: sam.credential).status == 403)
        #expect(send("PATCH", "/api/devices/\(kim.device)/settings", body: #"{"onStart":false}"#, bearer: sam.credential).status == 403)
        #expect(send("DELETE", "/api/devices/\(kim.device)/credential", bearer: sam.credential).status == 403)
        #expect(try store.phoneCredentials().allSatisfy { $0.revokedAt == nil })
    }

    /// The rows say where they name a device: a new route with `:deviceId`
    /// gets the check without writing it.
    @Test func everyRowNamingADeviceIsCheckedByTheTable() {
        let route = Route<Int>(.get, "/api/devices/:deviceId/new-thing", .token, 0)
        #expect(route.device == .path("deviceId"))
        let named = ControlAPI.routes.filter { $0.device != nil }.map { "\($0.method.rawValue) \($0.path)" }
        #expect(Set(named) == [
            "POST /api/devices/activity-token", "PATCH /api/devices/:deviceId/settings", "POST /api/devices/:deviceId/push-to-start-token",
            "DELETE /api/devices/:deviceId", "DELETE /api/devices/:deviceId/credential", "GET /api/notifications",
            "POST /api/devices/:deviceId/notifications/:notificationId/opened",
            "GET /api/devices/:deviceId", "POST /api/devices/:deviceId/test-push",
            "POST /devices/:deviceId/revoke", "POST /api/devices/:deviceId/activity-channel",
        ])
    }

    // MARK: 2, 3, 8. guessing

    @Test func pairingCodesAreCountedAndAHeldAddressCannotRedeemEvenTheRightOne() throws {
        let code = "K7QM-2XRT"
        try store.addPairingCode(hash: PhoneCredentials.digest(PhoneCredentials.normalised(code)), expires: SystemClock().now() + 600)
        var statuses: [Int] = []
        for guess in 0..<11 {
            statuses.append(send("POST", "/api/pair", body: #"{"code":"AAAA-AA\#(guess % 10)A"}"#).status)
        }
        #expect(statuses == Array(repeating: 401, count: 11))
        let held = send("POST", "/api/pair", body: #"{"code":"\#(code)"}"#)
        #expect(held.status == 429 && header(held, "Retry-After") == "1", "\(held)")
        #expect(send("GET", "/healthz").status == 200, "public routes are never held back")
        // The code was not looked at, so it is still there once the wait is over.
        clock.advance(1)
        #expect(send("POST", "/api/pair", body: #"{"code":"\#(code)"}"#).status == 201)
        #expect(send("POST", "/api/pair", body: #"{"code":"AAAA-AAAA"}"#, from: "203.0.113.10").status == 401,
                "another address is not held back")
    }

    @Test func oneCredentialOfOnesOwnBuysNoFreshGuesses() throws {
        let phone = try pairedPhone("aa")
        var statuses: [Int] = []
        for _ in 0..<5 {
            for guess in 0..<9 { statuses.append(send("GET", "/api/printers", bearer: "guess-\(guess)").status) }
            statuses.append(send("GET", "/api/printers", bearer: phone.credential).status)
        }
        #expect(statuses.prefix(10) == [401, 401, 401, 401, 401, 401, 401, 401, 401, 200])
        #expect(statuses.contains(429), "held back in the second round: \(statuses)")
        #expect(statuses.filter { $0 == 401 }.count == 11, "ten free failures and the one that starts the wait")
    }

    @Test func aWrongCredentialFromATrustedNetworkIsAWrongCredential() {
        let lan = "192.168.1.33"
        #expect(send("GET", "/api/printers", from: lan).status == 200, "the seed app, which sends none")
        let wrong = send("GET", "/api/printers", bearer: "pbp_stale", from: lan)
        #expect(wrong.status == 401 && header(wrong, "WWW-Authenticate") == "Bearer")
        for _ in 0..<10 { _ = send("GET", "/api/printers", bearer: "pbp_stale", from: lan) }
        #expect(send("GET", "/api/printers", from: lan).status == 429, "counted like any guess")
    }

    @Test func anIPv6HostCountsAsItsSlash64() {
        for index in 0..<11 { _ = send("GET", "/api/printers", bearer: "guess", from: "2001:db8:5:6::\(index + 1)") }
        #expect(send("GET", "/api/printers", bearer: Self.adminToken, from: "2001:db8:5:6:abcd::1").status == 429)
        #expect(send("GET", "/api/printers", bearer: Self.adminToken, from: "2001:db8:5:7::1").status == 200)
    }

    // MARK: 4, 5. the status page

    /// The page's form token, as a browser reads it off the page.
    func formToken(_ page: HTTPResponse) throws -> String {
        let marker = #"name="form" value=""#
        let start = try #require(page.body.range(of: marker)?.upperBound, "a form on the page")
        return String(page.body[start...].prefix { $0 != "\"" })
    }

    @Test func theStatusPagesFormsRefuseOtherSitesAndTheFrameIsForbidden() throws {
        let phone = try pairedPhone("aa")
        let page = send("GET", "/", basic: Self.adminToken)
        #expect(page.status == 200)
        #expect(header(page, "X-Frame-Options") == "SAMEORIGIN")
        #expect(header(page, "Content-Security-Policy")?.contains("frame-ancestors 'self'") == true)
        #expect(header(page, "Content-Security-Policy")?.contains("form-action 'self'") == true)
        let token = try formToken(page)
        let revoke = "/devices/\(phone.device)/revoke"
        let form = "form=\(token)"
        func post(_ headers: [String: String], body: String = form, from peer: String = "203.0.113.9") -> Int {
            send("POST", revoke, body: body, json: false, basic: Self.adminToken,
                 headers: ["content-type": "application/x-www-form-urlencoded"].merging(headers) { $1 }, from: peer).status
        }
        let attacks: [(String, [String: String])] = [
            ("a sandboxed frame or data: page", ["origin": "null"]),
            ("another site", ["origin": "https://evil.example"]),
            ("another port of the host", ["origin": "https://192.168.1.20:8443"]),
            ("no Origin, another site's Referer", ["referer": "https://evil.example/x.html"]),
            ("Fetch Metadata: cross-site", ["sec-fetch-site": "cross-site", "origin": "https://192.168.1.20:3000"]),
            ("Fetch Metadata: same-site", ["sec-fetch-site": "same-site"]),
        ]
        for (name, headers) in attacks {
            #expect(post(headers) == 403, "\(name)")
        }
        #expect(post([:], body: "") == 403, "no form token")
        #expect(post([:], body: "form=wrong") == 403, "a wrong form token")
        // The same through HA's ingress proxy (HA's sign-in before it).
        #expect(post(["origin": "null"], from: "172.30.32.2") == 403)
        #expect(post(["origin": "https://evil.example", "x-forwarded-host": "evil.example"], from: "203.0.113.9") == 403,
                "X-Forwarded-Host counts only from the proxy")
        #expect(try store.phoneCredentials().allSatisfy { $0.revokedAt == nil }, "nothing was revoked")
        // The page's own post, as a browser sends it: revoked.
        #expect(post(["origin": "https://192.168.1.20:3000", "sec-fetch-site": "same-origin",
                      "referer": "https://192.168.1.20:3000/"]) == 303)
        #expect(try store.phoneCredentials().allSatisfy { $0.revokedAt != nil })
        // Through the ingress: the page's origin is HA's, and HA says which host the browser asked for.
        let pairing = send("POST", "/pairing-code", body: form, json: false, headers: [
            "content-type": "application/x-www-form-urlencoded", "origin": "http://homeassistant.local:8123",
            "x-forwarded-host": "homeassistant.local:8123", "sec-fetch-site": "same-origin",
        ], from: "172.30.32.2")
        #expect(pairing.status == 200 && pairing.body.contains("ABCD-EFGH"), "\(pairing.status)")
        #expect(header(pairing, "X-Frame-Options") == "SAMEORIGIN")
        // A refusal is not a guess: the address is not held back by a hostile page.
        for _ in 0..<20 { _ = post(["origin": "null"]) }
        #expect(send("GET", "/", basic: Self.adminToken).status == 200)
    }

    // MARK: 6. the API and a web page

    @Test func aWebPageCannotDriveTheAPI() throws {
        let stop = "/api/printers/\(Self.printer)/actions/stop"
        // The admin's browser keeps the status page's Basic credentials: they open nothing under /api.
        let basic = send("POST", stop, basic: Self.adminToken)
        #expect(basic.status == 401 && header(basic, "WWW-Authenticate") == "Bearer")
        #expect(send("GET", "/api/printers", basic: Self.adminToken).status == 401)
        // A page of another site posting text/plain (no preflight), with a credential or on a trusted network.
        let attacks: [(String, [String: String])] = [
            ("text/plain from another site", ["origin": "https://evil.example", "content-type": "text/plain"]),
            ("Fetch Metadata: cross-site", ["sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors"]),
            ("a sandboxed frame", ["origin": "null"]),
        ]
        for (name, headers) in attacks {
            #expect(send("POST", stop, body: "{}", json: false, bearer: Self.adminToken, headers: headers).status == 403, "\(name)")
            let register = send("POST", "/api/devices/register",
                                body: #"{"apnsToken":"\#(String(repeating: "66", count: 32))","haUrl":"http://evil"}"#, json: false,
                                headers: headers, from: "192.168.1.40")
            #expect(register.status == 403, "\(name) on the trusted network: \(register.status)")
        }
        // A body not declared JSON is refused, whoever sends it.
        let plain = send("POST", "/api/devices/register", body: #"{"apnsToken":"\#(String(repeating: "66", count: 32))","haUrl":"http://evil"}"#,
                         json: false, headers: ["content-type": "text/plain"], from: "192.168.1.40")
        #expect(plain.status == 415, "\(plain)")
        #expect(send("POST", "/api/devices/register", body: #"{"apnsToken":"\#(String(repeating: "66", count: 32))","haUrl":"http://a"}"#,
                     json: false, bearer: Self.adminToken).status == 415)
        // A page on the user's own network, or rebound to the agent's address, is not the trusted network.
        #expect(send("GET", "/api/printers", headers: ["sec-fetch-site": "same-origin", "sec-fetch-mode": "cors"], from: "192.168.1.40").status == 401)
        // Its images, scripts and fetches of the API are refused, and not counted: they cannot hold the user back.
        for path in ["/api/printers", "/api/nothing"] {
            for _ in 0..<12 {
                #expect(send("GET", path, headers: ["sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image"],
                             from: "192.168.1.41").status == 403)
            }
        }
        #expect(send("GET", "/api/printers", from: "192.168.1.41").status == 200, "the seed app on that address is not held back")
        // Following a link to the status page from another site is not refused.
        #expect(send("GET", "/", basic: Self.adminToken, headers: [
            "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document",
        ]).status == 200)
        #expect(send("GET", "/", basic: Self.adminToken, headers: [
            "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "iframe",
        ]).status == 403, "but not in another site's frame")
        #expect(try store.devices().isEmpty, "no device registered")
        #expect(presses.all.isEmpty, "no button pressed")
        // The app's own requests still work: JSON, a bearer credential, no browser headers.
        #expect(send("POST", stop, bearer: Self.adminToken).status != 403)
        #expect(presses.all == ["\(Self.printer) stop"])
        #expect(send("POST", "/api/devices/register", body: #"{"apnsToken":"\#(String(repeating: "77", count: 32))","haUrl":"http://ha:8123"}"#,
                     from: "192.168.1.40").status == 200, "the seed app on the trusted network")
    }
}
