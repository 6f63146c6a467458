import APNsClient
import Foundation
import FoundationNetworking
import TestSupport
import Testing

/// A family's phones as the seed app drives them (Fixtures/seed-app: its
/// exact request bodies), against `printbridge run` with a mock HA playing
/// a whole print and the mock APNs recording what arrives.
@Suite(.serialized) struct SeedAppTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/seed-app").path

    func body(_ name: String) throws -> String {
        try String(contentsOfFile: Self.fixtures + "/" + name + ".json", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func token(_ json: String, _ key: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
        return try #require(object?[key])
    }


    @Test func twoPhonesOnOnePrinterAndOneThatSwitchedAway() async throws {
        let apns = try MockAPNsServer(recording: true)
        // The print begins once the phones are in (the test creates `go`).
        let go = DaemonTests.temporaryDirectory("seed-app") + "/go"
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--start-file", go, "--interval", "0.05"])
        let empty = NSTemporaryDirectory() + "printbridge-nodevices-\(UUID().uuidString.prefix(8)).json"
        try "[]".write(toFile: empty, atomically: true, encoding: .utf8)
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: empty, environment: apns.environment.merging(["LIVE_ACTIVITY_INTERVAL": "1", "LOG_LEVEL": "debug"]) { $1 },
            dryRun: false)
        #expect(agent.wait(upTo: 30) { agent.records.contains { $0["api.port"] != nil } })
        let port = try #require(agent.records.compactMap { $0["api.port"] as? Int }.first)
        #expect(agent.wait(upTo: 30) { agent.log.contains("subscribed to state changes") })

        for name in ["register-phone-a", "register-phone-b", "register-phone-c", "register-phone-c-switches",
                     "activity-token-phone-a", "activity-token-phone-b"] {
            let path = name.hasPrefix("register") ? "/api/devices/register" : "/api/devices/activity-token"
            #expect(try await DaemonTests.post(port, path, try body(name)) == 200, "\(name)")
        }
        // The agent has the phones and activities once it reloaded its devices after the last request.
        #expect(agent.wait(upTo: 30) { !agent.logged("devices reloaded", ["devices.count": "5"]).isEmpty })
        FileManager.default.createFile(atPath: go, contents: Data())
        let phoneA = try token(try body("register-phone-a"), "apnsToken")
        let phoneB = try token(try body("register-phone-b"), "apnsToken")
        let phoneC = try token(try body("register-phone-c"), "apnsToken")
        let activityA = try token(try body("activity-token-phone-a"), "activityToken")
        let activityB = try token(try body("activity-token-phone-b"), "activityToken")

        func requests(_ token: String) -> [[String: Any]] { apns.requests().filter { $0["token"] as? String == token } }
        #expect(agent.wait(upTo: 60) { requests(activityA).contains { $0["activity_event"] as? String == "end" } },
                "mock HA: \(ha.stats()); port \(ha.port)")
        // Every event handled, then stopped (pushes in flight answered
        // first): what the agent sends each phone, the mock APNs has recorded.
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.stop() == 0)

        // The alerts, then the silent push that refreshes the app's history.
        let alerts = ["print_started", "progress_milestone", "progress_milestone", "progress_milestone", "print_complete",
                      "print_history"]
        #expect(requests(phoneA).compactMap { $0["event"] as? String } == alerts)
        #expect(requests(phoneB).compactMap { $0["event"] as? String } == alerts)
        #expect(requests(phoneC).isEmpty, "phone C picked the P1S: no X1C alerts")
        // Phone A's Live Activity follows the whole print; phone B's token is
        // refused (410) at its first update and never used again.
        let updatesA = requests(activityA).compactMap { $0["activity_event"] as? String }
        #expect(updatesA.first == "update" && updatesA.last == "end")
        #expect(updatesA.filter { $0 == "update" }.count >= 2, "the start's update and routine ones: \(updatesA)")
        #expect(requests(activityB).count == 1)
        #expect(agent.log.contains("Live Activity token"), "the refused token is dropped, and said so")
        withExtendedLifetime(ha) {}  // the mock HA runs until here
    }
}
