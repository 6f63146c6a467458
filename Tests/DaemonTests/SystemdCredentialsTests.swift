import Foundation
import TestSupport
import Testing

/// `printbridge run` as Deploy/systemd/printbridge.service starts it: the
/// settings from printbridge.env.example, the secrets as credentials in
/// $CREDENTIALS_DIRECTORY, where one not yet created is the unit's blank
/// default (SetCredential=name:\n) instead of a failed start.
@Suite(.serialized) struct SystemdCredentialsTests {
    /// The example env file's settings, as systemd's EnvironmentFile= reads them.
    static func exampleSettings() throws -> [String: String] {
        let text = try String(contentsOfFile: DaemonTests.root + "/Deploy/systemd/printbridge.env.example", encoding: .utf8)
        var settings: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { settings[String(parts[0])] = String(parts[1]) }
        }
        return settings
    }

    /// A credentials directory: each given credential's contents, the others blank.
    static func credentials(_ given: [String: String]) throws -> String {
        let directory = DaemonTests.temporaryDirectory("credentials")
        for name in ["ha-token", "api-token", "apns-key.p8"] {
            try (given[name] ?? "\n").write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        return directory
    }

    func environment(_ ha: DaemonTests.MockHA, credentials: String, _ changes: [String: String] = [:]) throws -> [String: String] {
        var environment = try Self.exampleSettings()
        #expect(environment["DRY_RUN"] == "true", "the example starts in dry run")
        environment["HA_URL"] = "http://127.0.0.1:\(ha.port)"
        environment["API_LISTEN"] = "127.0.0.1:0"
        environment["CREDENTIALS_DIRECTORY"] = credentials
        environment["STATE_DIRECTORY"] = DaemonTests.temporaryDirectory("state")
        // Nothing of the test's own settings leaks in.
        for name in ["HA_TOKEN", "HA_TOKEN_FILE", "API_TOKEN", "API_TOKEN_FILE", "APNS_KEY_PATH", "STATE_DIR"] {
            environment[name] = ""
        }
        return environment.merging(changes) { $1 }
    }

    @Test func beforeTheAppleKeyExistsTheServiceRunsInDryRun() throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl")
        let credentials = try Self.credentials(["ha-token": DaemonTests.token + "\n", "api-token": "systemd-api-token\n"])
        let binary = try #require(CommandRunner.binary(repositoryRoot: DaemonTests.root))
        let out = NSTemporaryDirectory() + "printbridge-systemd-\(UUID().uuidString.prefix(8)).log"
        let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let process = try ChildProcess(
            binary, ["run"], environment: ProcessInfo.processInfo.environment.merging(try environment(ha, credentials: credentials)) { $1 },
            stdout: .descriptor(fd), stderr: .descriptor(fd))
        close(fd)
        defer { if process.isRunning { process.terminate() } }
        let log = { String(decoding: FileManager.default.contents(atPath: out) ?? Data(), as: UTF8.self) }
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, !log().contains("subscribed to state changes"), process.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(log().contains("subscribed to state changes"), "\(log())")
        #expect(log().contains("API listening"), "the api-token credential was read")
        process.terminate()
        #expect(process.waitForExit(upTo: 10) == 0)
    }

    @Test func aMissingTokenOrKeyIsPrintBridgesOwnLineNamingTheCredential() throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl")
        let noToken = try CommandRunner.run(
            ["run"], environment: try environment(ha, credentials: try Self.credentials(["api-token": "t\n"])))
        #expect(noToken.status == 78)
        #expect(noToken.stderr.contains("HA_TOKEN or HA_TOKEN_FILE not set") && noToken.stderr.contains("the systemd credential ha-token is missing or empty"), "\(noToken.stderr)")

        let noAPIToken = try CommandRunner.run(
            ["run"], environment: try environment(ha, credentials: try Self.credentials(["ha-token": DaemonTests.token])))
        #expect(noAPIToken.status == 78 && noAPIToken.stderr.contains("the systemd credential api-token is missing or empty"), "\(noAPIToken.stderr)")

        let sending = try CommandRunner.run(
            ["run"], environment: try environment(
                ha, credentials: try Self.credentials(["ha-token": DaemonTests.token, "api-token": "t"]), ["DRY_RUN": "false"]))
        #expect(sending.status == 78)
        #expect(sending.stderr.contains("APNS_KEY_PATH not set") && sending.stderr.contains("the systemd credential apns-key.p8 is missing or empty")
                && sending.stderr.contains("set DRY_RUN to true"), "\(sending.stderr)")

        let bad = try CommandRunner.run(
            ["run"], environment: try environment(
                ha, credentials: try Self.credentials(["ha-token": DaemonTests.token, "api-token": "t"]), ["DRY_RUN": "maybe"]))
        #expect(bad.status == 78 && bad.stderr.contains("DRY_RUN must be true or false"))
        let check = try CommandRunner.run(
            ["check-config"], environment: try environment(
                ha, credentials: try Self.credentials(["ha-token": DaemonTests.token, "api-token": "t"]), ["DRY_RUN": "maybe"]))
        #expect(check.status == 78 && check.stderr.contains("DRY_RUN must be true or false"), "check-config and run agree")
    }
}
