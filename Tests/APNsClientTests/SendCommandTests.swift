import Foundation
import TestSupport
import Testing

/// `printbridge send-test` and `replay --send` against the mock APNs.
@Suite(.serialized) struct SendCommandTests {
    let server: MockAPNsServer
    let environment: [String: String]

    init() throws {
        server = try MockAPNsServer()
        environment = server.environment
    }

    func outcome(_ result: CommandRunner.Result) throws -> [String: Any] {
        let line = try #require(result.stdout.split(separator: "\n").first)
        return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
    }

    @Test func sendTestPrintsApplesAnswer() throws {
        let delivered = try CommandRunner.run(["send-test", "--device", token("ab", 1)], environment: environment)
        #expect(delivered.status == 0)
        #expect(try outcome(delivered)["outcome"] as? String == "delivered")
        #expect((try outcome(delivered)["apns_id"] as? String)?.count == 36)
        let activity = try CommandRunner.run(["send-test", "--device", token("cd", 1), "--live-activity"], environment: environment)
        #expect(activity.status == 0)
        #expect(try outcome(activity)["push_type"] as? String == "liveactivity")
        let refused = try CommandRunner.run(["send-test", "--device", token("feed400f")], environment: environment)
        #expect(refused.status == 69)
        #expect(try outcome(refused)["reason"] as? String == "BadDeviceToken")
        #expect(refused.stderr.contains("APNS_PRODUCTION"))
        #expect(!refused.stdout.contains(token("feed400f")) && !refused.stderr.contains(token("feed400f")), "no whole token")
    }

    @Test func configurationProblemsExit78WithoutSecrets() throws {
        var missing = environment
        missing["APNS_KEY_ID"] = nil
        let result = try CommandRunner.run(["send-test", "--device", token("ab", 2)], environment: missing)
        #expect(result.status == 78)
        #expect(result.stderr.contains("APNS_KEY_ID not set"))
        var badKey = environment
        badKey["APNS_KEY_PATH"] = server.workdir + "/bad-garbage.p8"
        let key = try CommandRunner.run(["send-test", "--device", token("ab", 3)], environment: badKey)
        #expect(key.status == 78)
        #expect(key.stderr.contains("is not a PEM-encoded PKCS#8 private key"))
        #expect(!key.stderr.contains("TUlTVElLRVNFQ1JFVA"))
        let usage = try CommandRunner.run(["send-test", "--device", "xyz"], environment: environment)
        #expect(usage.status == 64)
    }

    @Test func replaySendDeliversARecordingInOrder() throws {
        let root = CommandRunner.repositoryRoot(from: #filePath)
        let devices = server.workdir + "/devices.json"
        try #"[{"apnsToken":"\#(token("ab", 9))","activityTokens":{"x1c_00m09a350100123":"\#(token("cd", 9))"}}]"#
            .write(toFile: devices, atomically: true, encoding: .utf8)
        let started = Date()
        // The recording (a capture of the real chain) begins ~25 s before its first push and has its pushes
        // over ~17.5 s; 6 times faster that is ~4.2 s, then ~2.9 s.
        let result = try CommandRunner.run(
            ["replay", root + "/SampleEvents/bambu-pause-resume.jsonl", "--devices", devices, "--send", "--speed", "6"],
            environment: environment)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        let outcomes = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        // Live Activity updates are throttled on the played (compressed) time,
        // so the alerts and a few updates remain.
        #expect(outcomes.count >= 6)
        #expect(outcomes.contains { $0["event"] as? String == "paused" })
        #expect(outcomes.allSatisfy { $0["outcome"] as? String == "delivered" })
        #expect(outcomes.first?["event"] as? String == "started")
        // The print's end (the Live Activity's, then the silent push that the
        // history changed), then "Ready to Remove" once the bed has cooled.
        #expect(outcomes.suffix(3).map { $0["event"] as? String } == ["end", "history", "bed_cooled"], "\(outcomes.suffix(3))")
        #expect(try server.stat("requests") == outcomes.count)
        #expect(try server.stat("connections") == 1)
        // The print plays from now, compressed by --speed, and each push goes
        // out at its time: stamps start at the run, span ~4 s, never run ahead
        // of the clock, and the run lasts as long as they span.
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let stamps = try outcomes.map { try #require(parser.date(from: $0["at"] as? String ?? ""), "\($0)") }
        let first = try #require(stamps.first), last = try #require(stamps.last)
        #expect(abs(first.timeIntervalSince(started)) < 5, "\(first) vs \(started)")
        #expect((2.5...6).contains(last.timeIntervalSince(first)), "\(first) … \(last)")
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(elapsed >= last.timeIntervalSince(started) - 0.2, "sent at their times, not in a burst: \(elapsed) s")
    }

    /// A push for 40 phones at once goes out as one fan-out: all on one
    /// connection, many streams in flight together, outcome lines in the
    /// recording's order (phone by phone, as `replay` prints them).
    @Test func replaySendFansOutOnOneConnection() throws {
        let root = CommandRunner.repositoryRoot(from: #filePath)
        let phones = (0..<40).map { #"{"apnsToken":"\#(token("fa", $0))"}"# }
        let devices = server.workdir + "/fan-out.json"
        try "[\(phones.joined(separator: ","))]".write(toFile: devices, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(
            ["replay", root + "/SampleEvents/milestone-jump.jsonl", "--devices", devices, "--send", "--speed", "100000"],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let outcomes = try result.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        #expect(outcomes.count >= 80, "at least two alerts for each of 40 phones")
        #expect(outcomes.allSatisfy { $0["outcome"] as? String == "delivered" })
        let firstEvent = outcomes.prefix(40).compactMap { $0["event"] as? String }
        #expect(Set(firstEvent).count == 1, "the first alert to every phone before the next: \(firstEvent)")
        #expect(try server.stat("requests") == outcomes.count)
        #expect(try server.stat("connections") == 1)
        #expect(try server.stat("max_concurrent_streams") >= 10, "a fan-out, not one push after another")
    }

    @Test func speedPacesOnlySendAndMustBePositive() throws {
        let root = CommandRunner.repositoryRoot(from: #filePath)
        let recording = root + "/SampleEvents/milestone-jump.jsonl"
        let alone = try CommandRunner.run(["replay", recording, "--speed", "10"], environment: environment)
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--speed 10.0 paces --send"))
        let zero = try CommandRunner.run(
            ["replay", recording, "--devices", server.workdir + "/devices.json", "--send", "--speed", "0"],
            environment: environment)
        #expect(zero.status == 64)
        #expect(zero.stderr.contains("--speed must be a positive number"))
    }

    @Test func replaySendNeedsRealDevices() throws {
        let root = CommandRunner.repositoryRoot(from: #filePath)
        let result = try CommandRunner.run(["replay", root + "/SampleEvents/milestone-jump.jsonl", "--send"], environment: environment)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--send needs --devices"))
    }
}
