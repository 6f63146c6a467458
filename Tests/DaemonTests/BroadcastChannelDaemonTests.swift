import Foundation
import TestSupport
import Testing

/// `printbridge run` against the mock APNs's two APIs (issue 52): the
/// agent makes the printer's channel on the management port, the API hands
/// the app its id, and a print reaches an iOS 18 phone as broadcasts on the
/// push port while an iOS 17 phone keeps its per-token pushes.
@Suite struct BroadcastChannelDaemonTests {
    let older = "17" + String(repeating: "ab", count: 31)
    let olderActivity = "17" + String(repeating: "cd", count: 39)
    let newer = "18" + String(repeating: "ab", count: 31)
    static let printer = "x1c_00m09a350100123"

    func devicesFile() throws -> String {
        let path = NSTemporaryDirectory() + "printbridge-channels-\(UUID().uuidString.prefix(8)).json"
        try #"""
            [{"apnsToken":"\#(older)","activityTokens":{"\#(Self.printer)":"\#(olderActivity)"}},
             {"apnsToken":"\#(newer)","activityChannels":["\#(Self.printer)"]}]
            """#.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aPrintGoesToTheChannelOnceAnUpdateAndToTheOlderPhonesToken() throws {
        let apns = try MockAPNsServer(recording: true)
        let devices = try devicesFile()
        defer { try? FileManager.default.removeItem(atPath: devices) }
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--timeline", "6"])
        let agent = try DaemonTests.Agent(port: ha.port, devices: devices, environment: apns.environment, dryRun: false)
        #expect(agent.wait(upTo: 30) { !agent.logged("Live Activity broadcast channel made").isEmpty }, "\(agent.log.suffix(2000))")
        let channel = try #require(apns.channels().first)
        #expect(apns.channels().count == 1, "one printer, one channel")
        let made = try apns.channelRequests()
        #expect(made.map { "\($0["method"] ?? "") \($0["path"] ?? "")" }.prefix(2)
                == ["GET /1/apps/\(MockAPNsServer.bundleID)/all-channels", "POST /1/apps/\(MockAPNsServer.bundleID)/channels"])
        let port = try #require(agent.apiPort)
        let answer = try #require(LocalHTTP.get(
            port: port, "/api/printers/\(Self.printer)/channel", headers: ["Authorization": "Bearer \(DaemonTests.apiToken)"]))
        #expect(answer.status == 200 && answer.body.contains(channel), "\(answer.body)")
        #expect(agent.wait(upTo: 60) {
            apns.requests().contains { $0["token"] as? String == "channel:" + channel && $0["activity_event"] as? String == "end" }
        }, "mock HA: \(ha.rawStats())")
        let requests = apns.requests()
        let broadcasts = requests.filter { $0["token"] as? String == "channel:" + channel }
        let tokens = requests.filter { $0["token"] as? String == olderActivity }
        #expect(!broadcasts.isEmpty && broadcasts.allSatisfy { $0["push_type"] as? String == "liveactivity" })
        #expect(tokens.last?["activity_event"] as? String == "end")
        // Once the channel is there, each update the older phone gets by token the channel gets once.
        let since = try #require(broadcasts.first?["received_at"] as? Double)
        let tokenUpdates = tokens.filter { ($0["received_at"] as? Double ?? 0) >= since - 0.5 }
        #expect(abs(broadcasts.count - tokenUpdates.count) <= 1, "\(broadcasts.count) broadcasts, \(tokenUpdates.count) token pushes")
        #expect(!requests.contains { ($0["token"] as? String)?.hasPrefix("18") == true && $0["push_type"] as? String == "liveactivity" },
                "the iOS 18 phone has no token push")
        #expect(broadcasts.allSatisfy { ($0["relevance_score"] as? Double ?? ($0["relevance_score"] as? Int).map(Double.init)) != nil })
        #expect(try apns.stat("broadcasts") == broadcasts.count)
        #expect(agent.stop() == 0)
    }

    @Test func aRefusedChannelIsSaidOnceAndTheActivitiesGoByToken() throws {
        let apns = try MockAPNsServer(recording: true)
        apns.failChannelManagement(status: 400, reason: "FeatureNotEnabled", times: nil)
        let devices = try devicesFile()
        defer { try? FileManager.default.removeItem(atPath: devices) }
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl")
        let agent = try DaemonTests.Agent(port: ha.port, devices: devices, environment: apns.environment, dryRun: false)
        #expect(agent.wait(upTo: 30) {
            apns.requests().contains { $0["token"] as? String == olderActivity && $0["activity_event"] as? String == "end" }
        })
        let refusals = agent.logged("APNs refused Live Activity broadcast channels; printers' activities are updated token by token")
        #expect(refusals.count == 1, "\(agent.log.suffix(2000))")
        #expect("\(refusals.first?["apns.advice"] ?? "")".contains("Broadcast capability"))
        #expect(try apns.channels().isEmpty && apns.stat("broadcasts") == 0)
        #expect(agent.stop() == 0)
    }
}
