import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Testing

/// GET /api/history as the app's history screen calls it: every printer's
/// prints, newest first, page by page with the `next` cursor, filtered by
/// printer, outcome and time; and the seed's per-printer route beside it.
extension ControlAPITests {
    /// Six prints on two printers, one ending a minute (two in the same second).
    func storeWithHistory() throws {
        let ends: [(String, Double, PrintRecord.Outcome)] = [
            ("x1c", 0, .complete), ("p1s", 60, .failed), ("x1c", 120, .cancelled), ("p1s", 120, .complete),
            ("x1c", 180, .abandoned), ("p1s", 240, .complete),
        ]
        try store.commit(prints: ends.map { printer, offset, outcome in
            let end = 1_795_165_200 + offset
            return PrintRecord(
                printID: "\(printer)-\(Int(end) - 3600)", printer: printer, file: "\(printer)-\(Int(offset)).3mf",
                startedAt: EpochTime(seconds: end - 3600), endedAt: EpochTime(seconds: end), outcome: outcome)
        })
    }

    func prints(_ reply: Reply) -> [String] {
        (reply.json["prints"] as? [[String: Any]] ?? []).compactMap { $0["file"] as? String }
    }

    @Test func everyPrintOnceNewestFirstWhateverThePageSize() async throws {
        try storeWithHistory()
        for limit in 1...4 {
            var seen: [String] = []
            var path = "/api/history?limit=\(limit)"
            while true {
                let reply = try await call("GET", path)
                #expect(reply.status == 200, "\(reply.text)")
                #expect(prints(reply).count <= limit)
                seen += prints(reply)
                guard let next = reply.json["next"] as? String else { break }
                path = "/api/history?limit=\(limit)&before=\(next)"
            }
            // The two that ended in the same second: the one written last first.
            #expect(seen == ["p1s-240.3mf", "x1c-180.3mf", "p1s-120.3mf", "x1c-120.3mf", "p1s-60.3mf", "x1c-0.3mf"],
                    "limit \(limit)")
        }
        let all = try await call("GET", "/api/history")
        #expect(all.json["success"] as? Bool == true && all.json["next"] is NSNull, "50 by default: one page")
        let first = try #require((all.json["prints"] as? [[String: Any]])?.first)
        #expect(first["printId"] as? String == "p1s-1795161840" && first["printer"] as? String == "p1s")
        #expect(first["outcome"] as? String == "complete" && first["endedAt"] as? String == "2026-11-20T09:04:00.000Z")
    }

    @Test func filteredByPrinterOutcomeAndTime() async throws {
        try storeWithHistory()
        #expect(prints(try await call("GET", "/api/history?printer=x1c")) == ["x1c-180.3mf", "x1c-120.3mf", "x1c-0.3mf"])
        let problems = try await call("GET", "/api/history?outcome=failed,cancelled")
        #expect(problems.json["prints"].map { ($0 as? [[String: Any]])?.compactMap { $0["outcome"] as? String } }
            == ["cancelled", "failed"])
        // [from, to): a bucket's start and end from /api/statistics select its prints.
        let window = try await call("GET", "/api/history?from=2026-11-20T09%3A01%3A00Z&to=2026-11-20T10%3A03%3A00%2B01%3A00")
        #expect(prints(window) == ["p1s-120.3mf", "x1c-120.3mf", "p1s-60.3mf"])
        let combined = try await call("GET", "/api/history?printer=p1s&outcome=complete&from=2026-11-20T09:01:00Z&limit=1")
        #expect(prints(combined) == ["p1s-240.3mf"] && combined.json["next"] is String)
        let rest = try await call("GET", "/api/history?printer=p1s&outcome=complete&from=2026-11-20T09:01:00Z&before=\(combined.json["next"] as! String)")
        #expect(prints(rest) == ["p1s-120.3mf"] && rest.json["next"] is NSNull)
        // An ISO 8601 time as `before`: strictly older.
        #expect(prints(try await call("GET", "/api/history?before=2026-11-20T09:02:00Z")) == ["p1s-60.3mf", "x1c-0.3mf"])
        #expect(prints(try await call("GET", "/api/history?printer=nobody")).isEmpty, "a filter that matches nothing")
    }

    @Test func badHistoryParametersAreNamed() async throws {
        for (query, parameter) in [
            ("outcome=won", "outcome"), ("outcome=failed,", "outcome"), ("from=yesterday", "from"), ("to=2026-13-01T00:00:00Z", "to"),
            ("from=2026-11-21T00:00:00Z&to=2026-11-20T00:00:00Z", "from"), ("before=12_zz", "before"), ("limit=0", "limit"),
            ("limit=201", "limit"), ("printr=x1c", "printr"), ("printer=a&printer=b", "printer"), ("printer=", "printer"),
        ] {
            let reply = try await call("GET", "/api/history?\(query)")
            #expect(reply.status == 400, "\(query): \(reply.text)")
            #expect((reply.json["details"] as? [String: Any])?[parameter] != nil, "\(query): \(reply.text)")
        }
        #expect(try await call("GET", "/api/history", token: nil).status == 401)
    }

    /// The seed's route: one printer's prints, all of them, as before.
    @Test func thePrintersOwnHistoryIsAViewOfTheSame() async throws {
        try storeWithHistory()
        let reply = try await call("GET", "/api/printers/p1s/history")
        #expect(reply.status == 200 && reply.json["printer"] as? String == "p1s")
        #expect(prints(reply) == ["p1s-240.3mf", "p1s-120.3mf", "p1s-60.3mf"])
        #expect(try await call("GET", "/api/printers/x1c/history").status == 200)
        #expect(try await call("GET", "/api/printers/gone/history").status == 404)
    }
}
