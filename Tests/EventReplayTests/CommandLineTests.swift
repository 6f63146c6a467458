import Foundation
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
        #expect(lines.count == 8)
        #expect(lines.contains { $0.contains("milestone → d0d0d0…d0d0 [alert, p10]  75% Complete — tall_vase.3mf on X1C") })
    }

    @Test func badLinesGoToStderrAndDoNotFailTheRun() throws {
        let result = try run(["replay", Repo.sampleEvents + "/odd-input.jsonl"])
        #expect(result.status == 0)
        #expect(result.stderr.split(separator: "\n").count == 3)
        #expect(result.stderr.contains("odd-input.jsonl:19: skipped: invalid JSON"))
    }

    @Test func anUnreadableFileExits66AfterReplayingTheRest() throws {
        let result = try run(["replay", "/nonexistent.jsonl", Repo.sampleEvents + "/milestone-jump.jsonl"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("/nonexistent.jsonl: cannot read file: No such file or directory"))
        #expect(result.stdout.split(separator: "\n").count == 8)
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

    @Test func statsGoToStderr() throws {
        let result = try run(["replay", Repo.sampleEvents + "/two-printers-with-noise.jsonl", "--stats"])
        #expect(result.stderr.hasPrefix("replay: "))
        #expect(result.stderr.contains("skipped unparsed"))
        #expect(result.stderr.contains("peak RSS"))
    }
}
