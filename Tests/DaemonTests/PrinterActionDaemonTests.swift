import Foundation
import FoundationNetworking
import Testing
import TestSupport

/// The app's printer actions through `run`: the API answers once (mock) HA
/// has answered the `call_service` the agent sent on its WebSocket (issue 31).
@Suite struct PrinterActionDaemonTests {
    /// The full print's recording up to mid-print: the printer stays running.
    static func midPrintEvents() throws -> String {
        let lines = try String(contentsOfFile: DaemonTests.root + "/SampleEvents/bambu-full-print.jsonl", encoding: .utf8)
            .split(separator: "\n")
        let path = NSTemporaryDirectory() + "printbridge-midprint-\(UUID().uuidString.prefix(8)).jsonl"
        try (lines.prefix(30).joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func action(_ port: Int, _ path: String) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.setValue("Bearer \(DaemonTests.apiToken)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0,
                (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    static func serviceCalls(_ ha: DaemonTests.MockHA) -> [[String: Any]] {
        ha.rawStats()["service_calls"] as? [[String: Any]] ?? []
    }

    @Test func pauseIsAButtonPressAndAResumeWhileRunningIsRefused() async throws {
        let events = try Self.midPrintEvents()
        defer { try? FileManager.default.removeItem(atPath: events) }
        let ha = try DaemonTests.MockHA(events: events)
        let agent = try DaemonTests.Agent(port: ha.port, devices: try DaemonTests.devicesFile())
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.alerts.contains("ab started"), "\(agent.alerts)")
        let port = try #require(agent.records.compactMap { $0["api.port"] as? Int }.first)

        let (paused, json) = try await Self.action(port, "/api/printers/x1c_00m09a350100123/actions/pause")
        #expect(paused == 200, "\(json)")
        #expect(json["entityId"] as? String == "button.x1c_00m09a350100123_pause_printing")
        let calls = Self.serviceCalls(ha)
        #expect(calls.count == 1, "\(calls)")
        #expect(calls.first?["domain"] as? String == "button" && calls.first?["service"] as? String == "press")
        #expect((calls.first?["target"] as? [String: Any])?["entity_id"] as? String == "button.x1c_00m09a350100123_pause_printing")

        let (refused, refusal) = try await Self.action(port, "/api/printers/x1c_00m09a350100123/actions/resume")
        #expect(refused == 409 && refusal["error"] as? String == "Only a paused print can be resumed; it is running")
        #expect(Self.serviceCalls(ha).count == 1, "nothing more sent to HA")

        #expect(agent.stop() == 0)
        let logged = agent.logged("printer action")
        #expect(logged.count == 1 && logged.first?["action.result"] as? String == "pressed", "\(logged)")
        #expect(logged.first?["api.caller"] as? String == "api token")
        #expect(agent.logged("printer action not done").first?["action.result"] as? String == "does_not_fit")
        #expect(!agent.log.contains(DaemonTests.apiToken), "the token is never logged")
    }

    @Test func haSRefusalReachesTheAppInItsOwnWords() async throws {
        let events = try Self.midPrintEvents()
        defer { try? FileManager.default.removeItem(atPath: events) }
        let ha = try DaemonTests.MockHA(events: events, arguments: ["--refuse-services", "Printer is not printing"])
        let agent = try DaemonTests.Agent(port: ha.port, devices: try DaemonTests.devicesFile())
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        let port = try #require(agent.records.compactMap { $0["api.port"] as? Int }.first)
        let (status, json) = try await Self.action(port, "/api/printers/x1c_00m09a350100123/actions/stop")
        #expect(status == 502 && json["error"] as? String == "Home Assistant refused: Printer is not printing", "\(json)")
        #expect(Self.serviceCalls(ha).count == 1)
        #expect(agent.stop() == 0)
    }
}
