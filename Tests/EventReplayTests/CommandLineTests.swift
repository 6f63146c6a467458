import Foundation
import PrintBridgeCore
import TestSupport
import Testing

/// `printbridge replay` as a user runs it: the real binary, its exit codes,
/// stdout for pushes and stderr for problems.
@Suite struct CommandLineTests {
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandRunner.Result {
        try CommandRunner.run(arguments, environment: environment)
    }

    @Test func replayPrintsTheGoldenPushesOnStdout() throws {
        let result = try run(["replay", Repo.sampleEvents + "/bambu-full-print.jsonl"])
        #expect(result.status == 0)
        #expect(result.stdout == Repo.read(Repo.sampleEvents + "/expected/bambu-full-print.jsonl"))
        #expect(result.stderr.isEmpty)
    }

    @Test func textFormatIsOneReadableLinePerPush() throws {
        let result = try run(["replay", Repo.sampleEvents + "/milestone-jump.jsonl", "--format", "text"])
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 10)
        #expect(lines.contains { $0.contains("milestone → d0d0d0…d0d0 [alert, p10]  75% Complete — tall_vase on X1C_00M09A350100123") })
        #expect(lines.last?.contains("history → d0d0d0…d0d0 [background, p5]  silent: print_history complete") == true)
    }

    @Test func badLinesGoToStderrAndDoNotFailTheRun() throws {
        let result = try run(["replay", Repo.sampleEvents + "/odd-input.jsonl"])
        #expect(result.status == 0)
        #expect(result.stderr.split(separator: "\n").count == 3)
        #expect(result.stderr.contains("odd-input.jsonl:21: skipped: invalid JSON"))
    }

    @Test func anUnreadableFileExits66AfterReplayingTheRest() throws {
        let result = try run(["replay", "/nonexistent.jsonl", Repo.sampleEvents + "/milestone-jump.jsonl"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("/nonexistent.jsonl: cannot read file: No such file or directory"))
        #expect(result.stdout.split(separator: "\n").count == 10)
    }

    @Test func configurationMistakesExit78WithoutOutput() throws {
        let devices = Repo.temporaryPath("bad-devices.json")
        Repo.write(#"[{"apnsToken":"nothex"}]"#, to: devices)
        let bad = try run(["replay", Repo.sampleEvents + "/milestone-jump.jsonl", "--devices", devices])
        #expect(bad.status == 78)
        #expect(bad.stderr.contains("device 1: \"apnsToken\" must be a hex APNs device token"))
        #expect(bad.stdout.isEmpty)
        let milestones = try run(["replay", Repo.sampleEvents + "/milestone-jump.jsonl", "--milestones", "25,abc"])
        #expect(milestones.status == 78)
        let environment = try run(["replay", Repo.sampleEvents + "/milestone-jump.jsonl"], environment: ["LIVE_ACTIVITY_INTERVAL": "soon"])
        #expect(environment.status == 78)
        #expect(environment.stderr.contains("LIVE_ACTIVITY_INTERVAL must be a number of seconds"))
    }

    @Test func usageMistakesExit64() throws {
        #expect(try run(["replay"]).status == 64)
        #expect(try run(["replay", "x.jsonl", "--format", "xml"]).status == 64)
        #expect(try run(["replay", "x.jsonl", "--no-such-option"]).status == 64)
    }

    @Test func environmentSetsMilestonesAndBundleID() throws {
        let result = try run(
            ["replay", Repo.sampleEvents + "/bambu-full-print.jsonl"],
            environment: ["MILESTONES": "50", "APNS_BUNDLE_ID": "org.example.Printers"])
        let alerts = result.stdout.split(separator: "\n").filter { $0.contains(#""push_type":"alert""#) }
        #expect(alerts.filter { $0.contains(#""event":"milestone""#) }.count == 1)
        #expect(alerts.allSatisfy { $0.contains(#""topic":"org.example.Printers""#) })
    }

    /// An option is the strongest source: the environment's value under it is not even read.
    @Test func optionsWinOverTheEnvironment() throws {
        let result = try run(
            ["replay", Repo.sampleEvents + "/bambu-full-print.jsonl", "--milestones", "50", "--bundle-id", "org.example.Option"],
            environment: ["MILESTONES": "not-a-number", "APNS_BUNDLE_ID": "org.example.Environment"])
        #expect(result.status == 0, "\(result.stderr)")
        let alerts = result.stdout.split(separator: "\n").filter { $0.contains(#""push_type":"alert""#) }
        #expect(alerts.filter { $0.contains(#""event":"milestone""#) }.count == 1)
        #expect(!alerts.isEmpty && alerts.allSatisfy { $0.contains(#""topic":"org.example.Option""#) })
    }

    @Test func statsGoToStderr() throws {
        let result = try run(["replay", Repo.sampleEvents + "/two-printers-with-noise.jsonl", "--stats"])
        #expect(result.stderr.hasPrefix("replay: "))
        #expect(result.stderr.contains("398 parsed, 0 bad"), "every line parsed")
        #expect(result.stderr.contains("peak RSS"))
    }
}

/// replay --state-dir: a replay stopped half-way and continued in a new
/// process with the same store sends every alert exactly once.
@Suite struct ReplayRestartTests {
    static let source = Repo.sampleEvents + "/bambu-full-print.jsonl"

    func alerts(_ result: CommandRunner.Result) -> [String] {
        result.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let json = try? JSONParser.parse(String(line)), json["push_type"] == "alert" else { return nil }
            return json["event"]?.stringValue
        }
    }

    func events(_ result: CommandRunner.Result) -> [String] {
        result.stdout.split(separator: "\n").compactMap { (try? JSONParser.parse(String($0)))?["event"]?.stringValue }
    }

    /// The source's lines split after the snapshot and `events` lines with events (a line is
    /// one of HA's frames: a printer's report is one array of its entities' changes).
    func halves(after events: Int) throws -> (first: String, second: String) {
        let lines = try #require(Repo.read(Self.source)).split(separator: "\n").map(String.init)
        var seen = 0
        var cut = lines.count
        for (index, line) in lines.enumerated() where line.contains(#""type":"event""#) {
            seen += 1
            if seen == events { cut = index + 1; break }
        }
        let first = Repo.temporaryPath("first-half.jsonl")
        let second = Repo.temporaryPath("second-half.jsonl")
        Repo.write(lines[..<cut].joined(separator: "\n") + "\n", to: first)
        Repo.write(lines[cut...].joined(separator: "\n") + "\n", to: second)
        return (first, second)
    }

    func devicesFile() -> String {
        let path = Repo.temporaryPath("restart-devices.json")
        Repo.write(#"[{"apnsToken":"\#(String(repeating: "ab", count: 32))","activityTokens":{"x1c_00m09a350100123":"\#(String(repeating: "cd", count: 40))"}}]"#, to: path)
        return path
    }

    @Test func aReplayContinuedFromTheStoreRepeatsNothing() throws {
        let state = Repo.temporaryPath("restart-state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let (first, second) = try halves(after: 30)
        let devices = devicesFile()
        let a = try CommandRunner.run(["replay", first, "--devices", devices, "--state-dir", state])
        let b = try CommandRunner.run(["replay", second, "--devices", devices, "--state-dir", state])
        #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        #expect(alerts(a).first == "started" && !alerts(a).contains("complete"))
        #expect(alerts(a) + alerts(b) == ["started", "milestone", "milestone", "milestone", "complete"])
        #expect(events(b).filter { $0 == "end" }.count == 1)
    }

    @Test func aPrintThatFinishedBetweenTwoReplaysCompletesOnce() throws {
        let state = Repo.temporaryPath("restart-state-down")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let first = try halves(after: 30).first
        // What HA shows when the agent comes back: the snapshot after every event.
        var states: [String: JSONValue] = [:]
        for line in try #require(Repo.read(Self.source)).split(separator: "\n") {
            let frame = try JSONParser.parse(String(line))
            for message in frame.arrayValue ?? [frame] {  // HA's coalesced frames
                if message["type"] == "result", let list = message["result"]?.arrayValue {
                    for state in list { if let id = state["entity_id"]?.stringValue { states[id] = state } }
                } else if let new = message["event"]?["data"]?["new_state"], let id = new["entity_id"]?.stringValue {
                    states[id] = new
                }
            }
        }
        let snapshot = Repo.temporaryPath("final-snapshot.jsonl")
        Repo.write(JSONText.encode(.object([
            "id": 2, "type": "result", "success": true, "result": .array(states.keys.sorted().map { states[$0]! }),
        ])) + "\n", to: snapshot)
        let devices = devicesFile()
        let a = try CommandRunner.run(["replay", first, "--devices", devices, "--state-dir", state])
        let b = try CommandRunner.run(["replay", snapshot, "--devices", devices, "--state-dir", state])
        #expect(alerts(a).first == "started")
        #expect(alerts(b) == ["complete"], "no stale milestones, no second start")
        #expect(events(b).filter { $0 == "end" }.count == 1, "and the Live Activity ends")
        let c = try CommandRunner.run(["replay", snapshot, "--devices", devices, "--state-dir", state])
        #expect(c.stdout.isEmpty, "a third look has nothing to say")
    }
}
