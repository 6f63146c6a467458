import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Testing

/// The silent push at a print's end tells the app to refresh its history
/// and statistics; the app asks at once. What it announced must be there,
/// asked within the same second (a hand-moved clock, no sleeping).
@Suite struct JustEndedPrintTests {
    let store: DeviceStore
    let clock: ManualClock
    let api: ControlAPI
    /// 2026-11-20 09:00:00.250 UTC: the print's end, by Home Assistant's clock.
    static let ended = 1_795_165_200.25

    init() throws {
        let directory = NSTemporaryDirectory() + "printbridge-just-ended-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        clock = ManualClock(EpochTime(seconds: Self.ended + 0.5))
        store = try DeviceStore(directory: directory, clock: clock)
        api = ControlAPI(
            store: store, apiToken: nil, apns: .init(configured: true, bundleID: "b", production: false), clock: clock)
    }

    func endPrint(at seconds: Double) throws {
        try store.commit(prints: [PrintRecord(
            printID: "x1c-1795160000", printer: "x1c", file: "benchy.3mf", startedAt: EpochTime(seconds: 1_795_160_000),
            endedAt: EpochTime(seconds: seconds), outcome: .complete, pausedSeconds: 0)])
    }

    func get(_ path: String, _ query: String = "") throws -> [String: Any] {
        let response = api.handle(HTTPRequest(method: "GET", path: path, query: query))
        #expect(response.status == 200, "\(path)?\(query): \(response.body)")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
    }

    func printsCounted(_ query: String = "") throws -> Int? {
        (try get("/api/statistics", query)["totals"] as? [String: Any])?["prints"] as? Int
    }

    @Test func statisticsAskedInTheSameSecondCountThePrint() throws {
        try endPrint(at: Self.ended)
        #expect(try printsCounted() == 1, "ended 0.5 s ago, in the current second")
        #expect(try printsCounted("days=7&tz=Europe%2FBerlin") == 1)
        #expect(try printsCounted("printer=x1c&bucket=week") == 1)
        clock.advance(by: 0.5)
        #expect(try printsCounted() == 1, "asked on the next second's first instant")
    }

    /// Home Assistant's clock a moment ahead of the agent's: its end is
    /// "later" than the agent's now, and still the print the push announced.
    @Test func aPrintStampedByAClockAMomentAheadIsCountedToo() throws {
        try endPrint(at: Self.ended + 1.5)
        #expect(try printsCounted() == 1)
    }

    @Test func theHistoryAskedInTheSameSecondHasThePrint() throws {
        try endPrint(at: Self.ended)
        let prints = try get("/api/printers/x1c/history")["prints"] as? [[String: Any]]
        #expect(prints?.map { $0["printId"] as? String } == ["x1c-1795160000"])
        let all = try get("/api/history")["prints"] as? [[String: Any]]
        #expect(all?.map { $0["printId"] as? String } == ["x1c-1795160000"], "the all-printers view, no `to`: open")
    }
}
