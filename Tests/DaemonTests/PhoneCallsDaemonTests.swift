import Foundation
import FoundationNetworking
import Testing
import TestSupport

/// The app's new calls through `printbridge run` (issue 49), as a paired
/// phone makes them: its device read back, a test push that reaches APNs
/// (the mock) in its language and is in its history with APNs's answer, and
/// the history's all-printers page.
@Suite struct PhoneCallsDaemonTests {
    @Test func aPairedPhoneReadsItsDeviceAndSendsItselfATestPush() async throws {
        let events = try PrinterActionDaemonTests.midPrintEvents()
        defer { try? FileManager.default.removeItem(atPath: events) }
        let apns = try MockAPNsServer(recording: true)
        let ha = try DaemonTests.MockHA(events: events)
        let agent = try DaemonTests.Agent(port: ha.port, devices: try DaemonTests.devicesFile(), environment: apns.environment, dryRun: false)
        defer { _ = agent.stop() }
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        let port = try #require(agent.apiPort)
        let credential = try await PhoneCredentialTests.pairedCredential(agent, port: port)
        let phone = String(repeating: "5a", count: 32)
        let registered = try await PhoneCredentialTests.call(port, "POST", "/api/devices/register",
            body: #"{"apnsToken":"\#(phone)","haUrl":"http://ha:8123","printerPrefix":"x1c_00m09a350100123","language":"de"}"#,
            bearer: credential)
        let device = try #require(registered.json["deviceId"] as? String, "\(registered)")
        #expect((registered.json["device"] as? [String: Any])?["language"] as? String == "de", "the answer is the settings screen's")

        let read = try await PhoneCredentialTests.call(port, "GET", "/api/devices/\(device)", bearer: credential)
        #expect(read.status == 200 && (read.json["device"] as? [String: Any])?["printerPrefixes"] as? [String] == ["x1c_00m09a350100123"])

        let test = try await PhoneCredentialTests.call(port, "POST", "/api/devices/\(device)/test-push", bearer: credential)
        #expect(test.status == 202, "\(test.json)")
        let queued = try #require(test.json["push"] as? [String: Any])
        #expect(queued["title"] as? String == "PrintBridge-Test" && queued["token"] as? String == "5a5a5a…5a5a")
        func tested() -> [[String: Any]] { apns.requests().filter { $0["token"] as? String == phone } }
        #expect(agent.wait(upTo: 30) { !tested().isEmpty }, "\(apns.requests())")
        let sent = try #require(tested().first)
        #expect(sent["push_type"] as? String == "alert" && sent["apns_id"] as? String == queued["apnsId"] as? String)
        #expect((sent["payload"] as? [String: Any]).flatMap { ($0["aps"] as? [String: Any])?["thread-id"] as? String } == "printbridge-test")
        // In the phone's history, with APNs's answer.
        func testOutcome() -> String? {
            let reply = LocalHTTP.get(port: port, "/api/notifications?device=\(device)", headers: ["Authorization": "Bearer \(credential)"])
            let json = reply.flatMap { try? JSONSerialization.jsonObject(with: Data($0.body.utf8)) as? [String: Any] }
            return ((json?["notifications"] as? [[String: Any]])?.first { $0["kind"] as? String == "test" })?["outcome"] as? String
        }
        #expect(agent.wait(upTo: 30) { testOutcome() == "delivered" }, "\(testOutcome() ?? "not listed")")

        let page = try await PhoneCredentialTests.call(port, "GET", "/api/history?limit=5", bearer: credential)
        #expect(page.status == 200 && page.json["prints"] is [Any] && page.json.keys.contains("next"))
        #expect(!agent.log.contains(phone) && !agent.log.contains(credential), "never a whole token or credential in the log")
    }
}
