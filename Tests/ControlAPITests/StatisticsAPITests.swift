import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Testing

/// GET /api/statistics as the app's dashboard calls it: the figures of known
/// prints in the phone's time zone, and a clear 400 or 404 for what cannot
/// be answered.
extension ControlAPITests {
    /// Four prints around Berlin's change to summer time (2026-03-29 01:00Z).
    func storeWithPrints() throws {
        func print(_ printer: String, _ start: Int, _ end: Int, _ outcome: PrintRecord.Outcome, reason: String? = nil,
                   paused: Double?, materials: [MaterialUse] = []) -> PrintRecord {
            PrintRecord(
                printID: "\(printer)-\(start)", printer: printer, file: "part-\(start).3mf",
                startedAt: EpochTime(seconds: Double(start)), endedAt: EpochTime(seconds: Double(end)), outcome: outcome,
                reason: reason, pausedSeconds: paused, materials: materials)
        }
        try store.commit(prints: [
            // 28 Mar 22:00 CET → 29 Mar 00:30 CET.
            print("x1c", 1_774_731_600, 1_774_740_600, .complete, paused: 1800,
                  materials: [MaterialUse(type: "PLA", color: "#FFFFFFFF", grams: 50, meters: 16.5)]),
            print("x1c", 1_774_778_400, 1_774_785_600, .failed, reason: "print error 0300-8003", paused: 0),
            print("p1s", 1_774_857_600, 1_774_862_100, .cancelled, reason: "cancelled by the user", paused: nil,
                  materials: [MaterialUse(type: "PETG", color: "#000000FF", grams: 10)]),
            // 31 Mar 22:00 CEST → 1 Apr 00:30 CEST.
            print("p1s", 1_774_987_200, 1_774_996_200, .failed, reason: "print error 0300-8003", paused: 600),
        ])
    }

    @Test func theDashboardsFiguresInThePhonesTimeZone() async throws {
        try storeWithPrints()
        let reply = try await call("GET", "/api/statistics?from=2026-03-28&to=2026-03-31&tz=Europe%2FBerlin")
        #expect(reply.status == 200, "\(reply.text)")
        let json = reply.json
        #expect(json["from"] as? String == "2026-03-28T00:00:00+01:00")
        #expect(json["to"] as? String == "2026-04-01T00:00:00+02:00", "the last day named is included")
        #expect(json["timeZone"] as? String == "Europe/Berlin" && json["bucket"] as? String == "day")
        let totals = try #require(json["totals"] as? [String: Any])
        #expect(totals["prints"] as? Int == 3 && totals["completed"] as? Int == 1)
        #expect(totals["failed"] as? Int == 1 && totals["cancelled"] as? Int == 1 && totals["abandoned"] as? Int == 0)
        #expect(totals["successRate"] as? Double == 0.3333)
        #expect(totals["hoursPrinting"] as? Double == 5.25, "2 h + 2 h + 1.25 h; the cancelled print's pauses unknown")
        #expect(totals["hoursPaused"] as? Double == 0.5)
        #expect(totals["grams"] as? Double == 60 && totals["meters"] as? Double == 16.5)
        let series = try #require(json["series"] as? [[String: Any]])
        #expect(series.map { $0["start"] as? String } == [
            "2026-03-28T00:00:00+01:00", "2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00",
            "2026-03-31T00:00:00+02:00",
        ])
        #expect(series.map { $0["prints"] as? Int } == [0, 2, 1, 0])
        #expect(series[1]["end"] as? String == "2026-03-30T00:00:00+02:00")
        #expect(series[0]["grams"] is NSNull, "no material reported that day")
        let material = try #require(json["material"] as? [[String: Any]])
        #expect(material.map { $0["type"] as? String } == ["PLA", "PETG"])
        #expect(material.first?["color"] as? String == "#FFFFFFFF" && material.first?["prints"] as? Int == 1)
        #expect(material.last?["meters"] is NSNull, "PETG's length was not reported")
        let longest = try #require(json["longestPrint"] as? [String: Any])
        #expect(longest["printId"] as? String == "x1c-1774731600" && longest["file"] as? String == "part-1774731600.3mf")
        #expect(longest["hours"] as? Double == 2.5 && longest["outcome"] as? String == "complete")
        #expect(longest["endedAt"] as? String == "2026-03-29T00:30:00+01:00")
        let failures = try #require(json["failuresByReason"] as? [[String: Any]])
        #expect(failures.map { $0["reason"] as? String } == ["print error 0300-8003"])
        #expect(failures.map { $0["count"] as? Int } == [1])

        // One printer, UTC, by week: 28 March falls in the week of Monday 23rd.
        let one = try await call("GET", "/api/statistics?printer=p1s&from=2026-03-28&to=2026-04-01&bucket=week")
        #expect(one.status == 200, "\(one.text)")
        #expect(one.json["printer"] as? String == "p1s" && one.json["timeZone"] as? String == "UTC")
        #expect((one.json["series"] as? [[String: Any]])?.map { $0["prints"] as? Int } == [0, 2])
        #expect((one.json["series"] as? [[String: Any]])?.first?["start"] as? String == "2026-03-28T00:00:00Z")
    }

    @Test func withNothingNamedTheLast30DaysInUTC() async throws {
        let reply = try await call("GET", "/api/statistics")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["timeZone"] as? String == "UTC" && reply.json["bucket"] as? String == "day")
        #expect((reply.json["series"] as? [[String: Any]])?.count == 30)
        #expect((reply.json["totals"] as? [String: Any])?["successRate"] is NSNull)
        #expect(reply.json["longestPrint"] is NSNull)
        let week = try await call("GET", "/api/statistics?days=7&tz=America/New_York")
        #expect((week.json["series"] as? [[String: Any]])?.count == 7)
        #expect((week.json["from"] as? String)?.hasSuffix("T00:00:00-05:00") == true)
    }

    @Test func whatCannotBeAnsweredIsNamed() async throws {
        try storeWithPrints()
        for (query, parameter) in [
            ("tz=Mars/Olympus", "tz"), ("tz=..%2F..%2Fetc%2Fpasswd", "tz"), ("from=2026-02-30", "from"),
            ("to=yesterday", "to"), ("bucket=year", "bucket"), ("from=2026-04-01&to=2026-03-01", "from"),
            ("from=2016-01-01&bucket=day", "bucket"), ("days=0", "days"), ("days=many", "days"), ("colour=red", "colour"),
            ("tz=UTC&tz=Europe/Berlin", "tz"), ("days=7&from=2026-03-01", "days"),
        ] {
            let reply = try await call("GET", "/api/statistics?\(query)")
            #expect(reply.status == 400, "\(query): \(reply.text)")
            #expect((reply.json["details"] as? [String: Any])?[parameter] != nil, "\(query): \(reply.text)")
        }
        let unknown = try await call("GET", "/api/statistics?printer=nobody")
        #expect(unknown.status == 404 && unknown.text.contains("Printer not found"))
    }
}
