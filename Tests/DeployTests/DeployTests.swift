import Foundation
import TestSupport
import Testing

/// Deploy/: each artefact checked by the tool that can check it here.
/// (The Dockerfiles need a Docker engine, which this machine does not have.)
@Suite struct DeployTests {
    static let root = CommandRunner.repositoryRoot(from: #filePath)

    func shell(_ command: String, environment: [String: String] = [:]) throws -> CommandRunner.Result {
        try CommandRunner.execute("/bin/bash", ["-c", command], environment: environment, directory: Self.root)
    }

    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "printbridge-deploy-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theSystemdUnitVerifiesWithoutAWarning() throws {
        let binary = try #require(CommandRunner.binary(repositoryRoot: Self.root))
        let directory = Self.temporaryDirectory()
        // The unit as installed, with its paths pointing into a scratch directory.
        let unit = try String(contentsOfFile: Self.root + "/Deploy/systemd/printbridge.service", encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/printbridge", with: binary)
            .replacingOccurrences(of: "/etc/printbridge/", with: directory + "/")
        try unit.write(toFile: directory + "/printbridge.service", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            atPath: Self.root + "/Deploy/systemd/printbridge.env.example", toPath: directory + "/printbridge.env")
        let result = try shell("systemd-analyze verify '\(directory)/printbridge.service'")
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "systemd-analyze: \(result.stdout)\(result.stderr)")
        for setting in ["DynamicUser=yes", "StateDirectory=printbridge", "NoNewPrivileges=yes", "ProtectSystem=strict",
                        "Restart=on-failure", "LoadCredential=ha-token:", "LoadCredential=apns-key.p8:", "LoadCredential=api-token:"] {
            #expect(unit.contains(setting), "\(setting)")
        }
    }

    @Test func theAddOnMapsItsOptionsAndKeepsTheAPITokenOutOfTheEnvironment() throws {
        let directory = Self.temporaryDirectory()
        try #"{"apns_team_id":"ABCDE12345","apns_key_id":"FGHIJ67890","apns_key_file":"/ssl/AuthKey.p8","apns_bundle_id":"com.example.App","apns_production":true,"api_token":"s3cret-api-token","milestones":"50"}"#
            .write(toFile: directory + "/options.json", atomically: true, encoding: .utf8)
        // A stand-in for printbridge that shows what it was given.
        try "#!/bin/bash\nenv | sort > \"$SECRETS_DIR/../env.txt\"\necho \"args: $*\" >> \"$SECRETS_DIR/../env.txt\"\n"
            .write(toFile: directory + "/fake-printbridge", atomically: true, encoding: .utf8)
        _ = try shell("chmod +x '\(directory)/fake-printbridge'")
        let run = try shell(
            "Deploy/homeassistant-addon/printbridge/run.sh",
            environment: ["OPTIONS_FILE": directory + "/options.json", "PRINTBRIDGE_BIN": directory + "/fake-printbridge",
                          "SECRETS_DIR": directory + "/secrets", "SUPERVISOR_TOKEN": "supervisor-token", "STATE_DIR": directory])
        #expect(run.status == 0, "\(run.stderr)")
        let env = try String(contentsOfFile: directory + "/env.txt", encoding: .utf8)
        for expected in ["HA_URL=ws://supervisor/core/websocket", "APNS_TEAM_ID=ABCDE12345", "APNS_KEY_ID=FGHIJ67890",
                         "APNS_KEY_PATH=/ssl/AuthKey.p8", "APNS_BUNDLE_ID=com.example.App", "APNS_PRODUCTION=true",
                         "MILESTONES=50", "API_LISTEN=0.0.0.0:3000", "API_TOKEN_FILE=\(directory)/secrets/api-token", "args: run"] {
            #expect(env.contains(expected), "\(expected)")
        }
        #expect(!env.contains("s3cret-api-token"), "the API token is in a file, not the environment")
        #expect(try String(contentsOfFile: directory + "/secrets/api-token", encoding: .utf8) == "s3cret-api-token\n")
        let mode = try FileManager.default.attributesOfItem(atPath: directory + "/secrets/api-token")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        try #"{"apns_team_id":"ABCDE12345","api_token":""}"#.write(toFile: directory + "/options.json", atomically: true, encoding: .utf8)
        let missing = try shell(
            "Deploy/homeassistant-addon/printbridge/run.sh",
            environment: ["OPTIONS_FILE": directory + "/options.json", "PRINTBRIDGE_BIN": directory + "/fake-printbridge",
                          "SECRETS_DIR": directory + "/secrets2", "SUPERVISOR_TOKEN": "x"])
        #expect(missing.status == 78 && missing.stderr.contains("set api_token"))
    }

    @Test func theAddOnConfigurationHasASchemaForEveryOption() throws {
        let check = try shell("""
            python3 -c '
            import sys, yaml
            c = yaml.safe_load(open("Deploy/homeassistant-addon/printbridge/config.yaml"))
            assert c["homeassistant_api"] is True, "needs homeassistant_api"
            assert set(c["options"]) == set(c["schema"]), "options and schema differ"
            assert c["schema"]["api_token"] == "password"
            assert "3000/tcp" in c["ports"]
            print("ok")
            '
            """)
        #expect(check.status == 0 && check.stdout == "ok\n", "\(check.stderr)")
    }

    @Test func theInstallScriptInstallsIntoARoot() throws {
        let binary = try #require(CommandRunner.binary(repositoryRoot: Self.root))
        let root = Self.temporaryDirectory()
        let first = try shell("Deploy/install.sh --root '\(root)' --binary '\(binary)'")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("systemctl enable --now printbridge"))
        for file in ["/usr/local/bin/printbridge", "/etc/systemd/system/printbridge.service", "/etc/printbridge/printbridge.env"] {
            #expect(FileManager.default.fileExists(atPath: root + file), "\(file)")
        }
        let mode = try FileManager.default.attributesOfItem(atPath: root + "/etc/printbridge/printbridge.env")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A second run keeps the user's edited settings.
        try "HA_URL=http://edited:8123\n".write(toFile: root + "/etc/printbridge/printbridge.env", atomically: true, encoding: .utf8)
        #expect(try shell("Deploy/install.sh --root '\(root)' --binary '\(binary)'").status == 0)
        #expect(try String(contentsOfFile: root + "/etc/printbridge/printbridge.env", encoding: .utf8) == "HA_URL=http://edited:8123\n")
        #expect(try shell("Deploy/install.sh --bogus").status == 64)
    }
}
