import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Testing

/// GET /api/notifications as the app calls it: its own phone's alerts,
/// newest first, page by page, and a clear 400 or 404 for what cannot be answered.
extension ControlAPITests {
    /// A phone with `count` alerts, one a minute, alternating between two printers.
    func phoneWithAlerts(_ count: Int) async throws -> String {
        let id = try #require(try await call("POST", "/api/devices/register", body: registerBody(phone)).json["deviceId"] as? String)
        var sent: [SentNotification] = []
        for n in 0..<count {
            let failed = n == 0
            let event: Push.Event = failed ? .failed : .milestone
            let title = failed ? "Druck fehlgeschlagen ⚠️" : "\(n)% abgeschlossen"
            let outcome: SentNotification.Outcome = n == 1 ? .rejected : .delivered
            sent.append(SentNotification(
                deviceID: id, printer: n.isMultiple(of: 2) ? "x1c" : "p1s", event: event, title: title,
                body: "benchy.3mf auf X1C", reason: failed ? "print error 0700-8006" : nil,
                createdAt: EpochTime(seconds: 1_795_165_200 + Double(n) * 60), outcome: outcome, apnsID: "id-\(n)"))
        }
        try store.commit(notifications: sent)
        return id
    }

    func items(_ reply: Reply) -> [[String: Any]] { reply.json["notifications"] as? [[String: Any]] ?? [] }

    @Test func thePhonesAlertsNewestFirstWithWhatTheAppShows() async throws {
        let id = try await phoneWithAlerts(3)
        let other = try #require(try await call("POST", "/api/devices/register", body: registerBody(tablet)).json["deviceId"] as? String)
        let reply = try await call("GET", "/api/notifications?device=\(id)")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["success"] as? Bool == true && reply.json["device"] as? String == id)
        #expect(items(reply).map { $0["title"] as? String } == ["2% abgeschlossen", "1% abgeschlossen", "Druck fehlgeschlagen ⚠️"])
        let failed = try #require(items(reply).last)
        #expect(failed["time"] as? String == "2026-11-20T09:00:00.000Z")
        #expect(failed["printer"] as? String == "x1c" && failed["kind"] as? String == "failed")
        #expect(failed["body"] as? String == "benchy.3mf auf X1C" && failed["reason"] as? String == "print error 0700-8006")
        #expect(failed["outcome"] as? String == "delivered" && failed["id"] is Int)
        #expect(items(reply)[1]["outcome"] as? String == "rejected")
        #expect(items(reply)[1]["reason"] is NSNull && failed["snapshot"] is NSNull)
        #expect(reply.json["next"] is NSNull, "no more")
        // Another phone sees none of them; a printer filter sees its own.
        #expect(items(try await call("GET", "/api/notifications?device=\(other)")).isEmpty)
        let x1c = try await call("GET", "/api/notifications?device=\(id)&printer=x1c")
        #expect(items(x1c).map { $0["printer"] as? String } == ["x1c", "x1c"])
    }

    @Test func pagesFollowTheNextCursorOrATime() async throws {
        let id = try await phoneWithAlerts(5)
        var titles: [String] = []
        var path = "/api/notifications?device=\(id)&limit=2"
        var pages = 0
        while true {
            let reply = try await call("GET", path)
            #expect(reply.status == 200, "\(reply.text)")
            titles += items(reply).compactMap { $0["title"] as? String }
            pages += 1
            guard let next = reply.json["next"] as? String else { break }
            path = "/api/notifications?device=\(id)&limit=2&before=\(next)"
        }
        #expect(pages == 3)
        #expect(titles == ["4% abgeschlossen", "3% abgeschlossen", "2% abgeschlossen", "1% abgeschlossen", "Druck fehlgeschlagen ⚠️"])
        // An ISO 8601 time, percent-encoded as a client writes it: strictly older.
        let older = try await call("GET", "/api/notifications?device=\(id)&before=2026-11-20T09%3A02%3A00Z")
        #expect(items(older).map { $0["title"] as? String } == ["1% abgeschlossen", "Druck fehlgeschlagen ⚠️"])
        #expect(items(try await call("GET", "/api/notifications?device=\(id)")).count == 5, "50 by default")
    }

    @Test func whatCannotBeAnsweredIsAClearError() async throws {
        let id = try await phoneWithAlerts(1)
        func problem(_ query: String) async throws -> (Int, [String: [String]]) {
            let reply = try await call("GET", "/api/notifications" + query)
            return (reply.status, reply.json["details"] as? [String: [String]] ?? [:])
        }
        let missing = try await problem("")
        #expect(missing.0 == 400 && missing.1["device"] == ["is required: the app's device id"])
        for bad in ["abc", "0", "10000", "-1", "2.5", ""] {
            let (status, details) = try await problem("?device=\(id)&limit=\(bad)")
            #expect(status == 400 && details["limit"] == ["must be a whole number from 1 to 200"], "limit=\(bad)")
        }
        #expect(try await problem("?device=\(id)&limit=200").0 == 200)
        for bad in ["nonsense", "12_zz", "2026-13-01T00:00:00Z"] {
            let (status, details) = try await problem("?device=\(id)&before=\(bad)")
            #expect(status == 400 && details["before"] != nil, "before=\(bad)")
        }
        let typo = try await problem("?devce=\(id)")
        #expect(typo.0 == 400 && typo.1["devce"] != nil && typo.1["device"] != nil)
        #expect(try await problem("?device=\(id)&device=\(id)").1["device"] == ["is given more than once"])
        // A query no client library would send (URLSession mends it): through the handler.
        let api = ControlAPI(store: store, apiToken: nil, apns: .init(configured: false, bundleID: "x.y", production: false))
        let broken = api.handle(HTTPRequest(method: "GET", path: "/api/notifications", query: "device=%zz"))
        #expect(broken.status == 400 && broken.body.contains(#""query":["is not a valid percent-encoded query string"]"#))
        let encoded = api.handle(HTTPRequest(method: "GET", path: "/api/notifications", query: "device=\(id)&printer=x%31c"))
        #expect(encoded.status == 200 && encoded.body.contains(#""printer":"x1c""#) && !encoded.body.contains("p1s"))
        let unknown = try await call("GET", "/api/notifications?device=no-such-phone")
        #expect(unknown.status == 404 && unknown.json["error"] as? String == "Device not found")
        #expect(try await call("GET", "/api/notifications?device=\(id)", token: nil).status == 401)
    }
}
