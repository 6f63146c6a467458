import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// APNs as a home network meets it: gone for a minute, or a connection that
/// a middlebox silently dropped. Nothing may be lost and nothing repeated.
@Suite struct APNsOutageTests {
    let device = "0e" + String(repeating: "ab", count: 31)
    let activity = "0e" + String(repeating: "cd", count: 39)

    func devicesFile() throws -> String {
        let path = NSTemporaryDirectory() + "printbridge-outage-\(UUID().uuidString.prefix(8)).json"
        try #"[{"apnsToken":"\#(device)","activityTokens":{"x1c_00m09a350100123":"\#(activity)"}}]"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// APNs goes away as the print begins and comes back a minute later; the
    /// whole print happens meanwhile, and the agent is restarted in the
    /// middle of the outage. After APNs returns the phone gets each alert
    /// once, in order, and the Live Activity its end.
    @Test func aMinuteWithoutAPNsAndARestartLoseNothingAndRepeatNothing() throws {
        let outage = 60.0
        let apns = try MockAPNsServer(recording: true)
        let devices = try devicesFile()
        defer { try? FileManager.default.removeItem(atPath: devices) }
        let state = DaemonTests.temporaryDirectory("outage")
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--timeline", "4"])
        let environment = apns.environment.merging(["APNS_RETRY_MAX": "3"]) { $1 }
        let first = try DaemonTests.Agent(
            port: ha.port, devices: devices, environment: environment, dryRun: false, stateDirectory: state)
        #expect(first.wait(upTo: 30) { first.log.contains("subscribed to state changes") })
        apns.stop()
        let down = Date()
        #expect(first.wait(upTo: 30) { ha.stats()["timeline_done"] == 1 }, "the print plays while APNs is away")
        #expect(first.wait(upTo: 30) { first.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(first.wait(upTo: 30) { first.log.contains("APNs did not answer") })
        #expect(first.stop() == 0)
        #expect(!first.log.contains("push given up"))
        #expect(first.log.contains("kept in the outbox for the next start"), "\(first.log.suffix(2000))")
        let connections = ha.stats()["connections"] ?? 0

        let second = try DaemonTests.Agent(
            port: ha.port, devices: devices, environment: environment, dryRun: false, stateDirectory: state)
        #expect(second.wait(upTo: 30) { second.log.contains("kept from before the restart") })
        Thread.sleep(forTimeInterval: max(0, outage - Date().timeIntervalSince(down)))
        let back = try MockAPNsServer(recording: true, restarting: apns)
        let returned = Date()
        func mine() -> [[String: Any]] {
            back.requests().filter { ($0["token"] as? String) == device || ($0["token"] as? String) == activity }
        }
        #expect(second.wait(upTo: 30) {
            mine().contains { $0["event"] as? String == "print_complete" }
                && mine().contains { $0["activity_event"] as? String == "end" }
        })
        let recovery = Date().timeIntervalSince(returned)
        // Nothing left that could go out again: HA's snapshot handled and the
        // outbox empty (every push answered or superseded, no retry due).
        #expect(second.wait(upTo: 30) {
            second.hasReceivedEverything(from: ha, connectionsBefore: connections) && second.metric("printbridge_outbox_pushes") == 0
        }, "\(second.log.suffix(2000))")
        #expect(second.stop() == 0)

        let alerts = mine().filter { ($0["token"] as? String) == device }
        let described = alerts.map { alert -> String in
            let event = alert["event"] as? String ?? "?"
            return event == "progress_milestone" ? "\(event) \(alert["progress"] ?? "?")" : event
        }
        #expect(described == [
            "print_started", "progress_milestone 25", "progress_milestone 50", "progress_milestone 75", "print_complete",
            "print_history",
        ], "each alert once, in order, then the silent refresh")
        // The silent refresh as Apple wants it, kept through the outage and accepted.
        let refresh = alerts.last
        #expect(refresh?["push_type"] as? String == "background" && refresh?["priority"] as? String == "5")
        #expect(!(first.log + second.log).contains("push rejected"))
        let ends = mine().filter { $0["activity_event"] as? String == "end" }
        #expect(ends.count == 1)
        #expect(mine().filter { ($0["token"] as? String) == activity }.count <= 2,
                "the updates that waited were superseded by the end: \(mine().count)")
        #expect(recovery < 15, "delivered \(recovery) s after APNs came back")
        #expect((first.log + second.log).contains("superseded"))
        #expect(!second.log.contains("expired"))
    }

    /// The APNs connection stops answering without a reset (a NAT dropped
    /// it): the next push goes out over a new connection within seconds.
    @Test func aBlackHoledConnectionIsReplacedWithinSeconds() throws {
        let apns = try MockAPNsServer(recording: true)
        let devices = try devicesFile()
        defer { try? FileManager.default.removeItem(atPath: devices) }
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--timeline", "6"])
        let agent = try DaemonTests.Agent(port: ha.port, devices: devices, environment: apns.environment, dryRun: false)
        func mine() -> [[String: Any]] { apns.requests().filter { ($0["token"] as? String) == device } }
        #expect(agent.wait(upTo: 30) { mine().contains { $0["event"] as? String == "print_started" } })
        apns.blackHoleOpenConnections()
        let holed = Date()
        #expect(agent.wait(upTo: 30) { mine().contains { $0["event"] as? String == "print_complete" } })
        let took = Date().timeIntervalSince(holed)
        #expect(agent.stop() == 0)
        #expect(try apns.stat("connections") == 2, "one new connection")
        #expect(took < 15, "the complete arrived \(took) s after the connection went dark")
        #expect(mine().compactMap { $0["event"] as? String }.filter { $0 == "print_complete" }.count == 1)
        #expect(agent.log.contains("APNs connection"), "the replacement is logged")
    }
}
