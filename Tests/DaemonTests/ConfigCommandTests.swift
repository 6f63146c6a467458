import Foundation
import TestSupport
import Testing

/// The settings file, its precedence under the environment, secrets from
/// files and systemd credentials, and `printbridge check-config`.
@Suite(.serialized) struct ConfigCommandTests {
    let directory: String
    let apns: MockAPNsServer

    init() throws {
        directory = NSTemporaryDirectory() + "printbridge-config-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
        apns = try MockAPNsServer()  // for its generated test keys only
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = directory + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// check-config with a clean environment apart from `environment`.
    func check(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> CommandRunner.Result {
        var clean: [String: String] = [:]
        for name in ["HA_URL", "HA_TOKEN", "HA_TOKEN_FILE", "API_TOKEN", "API_TOKEN_FILE", "APNS_TEAM_ID", "APNS_KEY_ID",
                     "APNS_KEY_PATH", "APNS_BUNDLE_ID", "LOG_LEVEL", "LOG_FORMAT", "PRINTBRIDGE_CONFIG", "CREDENTIALS_DIRECTORY"] {
            clean[name] = ""
        }
        clean["STATE_DIR"] = directory + "/state"
        return try CommandRunner.run(["check-config"] + arguments, environment: clean.merging(environment) { $1 })
    }

    @Test func theEnvironmentWinsOverTheFile() throws {
        let config = try write("precedence.yaml", """
            # PrintBridge settings
            ha_url: http://127.0.0.1:8123   # the file's HA
            ha_token: from-the-file
            log_level: debug
            api_listen: off
            """)
        let fileOnly = try check(["--config", config, "--dry-run"])
        #expect(fileOnly.status == 0, "\(fileOnly.stderr)")
        #expect(fileOnly.stdout.contains("log_level: debug  # from file"))
        #expect(fileOnly.stdout.contains("home assistant: ws://127.0.0.1:8123/api/websocket"))
        let overridden = try check(
            ["--config", config, "--dry-run"], environment: ["LOG_LEVEL": "warning", "HA_URL": "ws://[::1]:9000/api/websocket"])
        #expect(overridden.status == 0, "\(overridden.stderr)")
        #expect(overridden.stdout.contains("log_level: warning  # from environment"))
        #expect(overridden.stdout.contains("home assistant: ws://[::1]:9000/api/websocket"))
        // PRINTBRIDGE_CONFIG names the file when --config does not.
        let byVariable = try check(["--dry-run"], environment: ["PRINTBRIDGE_CONFIG": config])
        #expect(byVariable.status == 0 && byVariable.stdout.contains("config file: \(config)"))
    }

    /// The printers a recording and a live HA show, with the profile of
    /// each, and a hand-mapped printer beside them.
    @Test func checkConfigListsPrintersAndTheirProfiles() throws {
        let config = try write("printers.yaml", """
            ha_url: http://127.0.0.1:8123
            ha_token: t
            api_listen: off
            printers:
              garage:
                profile: moonraker
                status: sensor.garage_state
                progress: sensor.garage_done
            """)
        let recording = CommandRunner.repositoryRoot(from: #filePath) + "/SampleEvents/octoprint-prints.jsonl"
        let listed = try check(["--config", config, "--dry-run", "--printers-from", recording])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("mapped printer garage: status, progress (Moonraker / Klipper (moonraker-home-assistant))"))
        #expect(listed.stdout.contains("printer octoprint \"OctoPrint\": OctoPrint (Home Assistant core) [octoprint], idle"))
        #expect(listed.stdout.contains("printer octoprint_2 \"OctoPrint\": OctoPrint (Home Assistant core) [octoprint], idle"))
        #expect(listed.stdout.contains("  progress: sensor.octoprint_job_percentage_2"))
        #expect(listed.stdout.contains("printer garage (mapped): its status entity sensor.garage_state is not in Home Assistant"))
        let missing = try check(["--config", config, "--dry-run", "--printers-from", directory + "/none.jsonl"])
        #expect(missing.status == 78 && missing.stderr.contains("--printers-from: cannot read"))

        // HA's PrusaLink registers its entities (sensor.py's translation keys): the registry finds the printer.
        let registry = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/prusalink-registry.json").path
        let ha = try DaemonTests.MockHA(events: "prusalink-prints.jsonl", arguments: ["--registry", registry])
        let live = try check(
            ["--dry-run", "--printers-from-ha"],
            environment: ["HA_URL": "ws://127.0.0.1:\(ha.port)/api/websocket", "HA_TOKEN": DaemonTests.token, "API_LISTEN": "off"])
        #expect(live.status == 0, "\(live.stderr)")
        #expect(live.stdout.contains("printer prusa_mk4 \"prusa-mk4\": PrusaLink (Home Assistant core) [prusalink], "))
        #expect(live.stdout.contains("  progress: sensor.prusa_mk4_progress"))
        let refused = try check(
            ["--dry-run", "--printers-from-ha"],
            environment: ["HA_URL": "ws://127.0.0.1:\(ha.port)/api/websocket", "HA_TOKEN": "wrong", "API_LISTEN": "off"])
        #expect(refused.status == 78 && refused.stderr.contains("could not read Home Assistant's states"))
        #expect(!refused.stderr.contains("wrong"), "the token is never printed")
    }

    @Test func secretsComeFromFilesAndAreNeverPrinted() throws {
        let haToken = "ha-secret-4f1c2d9e", apiToken = "api-secret-77ab0c"
        let tokenFile = try write("ha-token", haToken + "\n")
        let config = try write("secrets.yaml", """
            ha_url: https://ha.example.test:8123
            ha_token_file: \(tokenFile)
            api_token: "\(apiToken)"
            """)
        let result = try check(["--config", config], environment: apns.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("api_token: <redacted>  # from file"))
        #expect(result.stdout.contains("apns: sandbox, key \(MockAPNsServer.keyID) parses as P-256"))
        for secret in [haToken, apiToken, try String(contentsOfFile: apns.keyPath, encoding: .utf8)] {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
        }
        // An unreadable token file is named, with nothing of its contents.
        let missing = try write("missing.yaml", "ha_url: http://127.0.0.1:8123\nha_token_file: \(directory)/nope\n")
        let failed = try check(["--config", missing, "--dry-run", "--no-api-auth"])
        #expect(failed.status == 78)
        #expect(failed.stderr.contains("ha_token_file (\(missing):2:16) \(directory)/nope cannot be read"), "\(failed.stderr)")
    }

    @Test func systemdCredentialsAreUsedWhenNoPathIsSet() throws {
        let credentials = directory + "/credentials"
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        try "ha-cred-token\n".write(toFile: credentials + "/ha-token", atomically: true, encoding: .utf8)
        try "api-cred-token\n".write(toFile: credentials + "/api-token", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: apns.keyPath, toPath: credentials + "/apns-key.p8")
        var environment = apns.environment
        environment["APNS_KEY_PATH"] = ""
        environment["HA_URL"] = "http://127.0.0.1:8123"
        environment["CREDENTIALS_DIRECTORY"] = credentials
        let result = try check(environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("ha_token_file: \(credentials)/ha-token  # from systemd credentials"))
        #expect(result.stdout.contains("apns_key_path: \(credentials)/apns-key.p8  # from systemd credentials"))
        #expect(!result.stdout.contains("cred-token"))
    }

    @Test(arguments: [
        ("ha_url: http://h:8123\n  api_listen: off\n", "2:13", "not valid YAML: mapping values are not allowed in this context"),
        ("- ha_url: http://h:8123\n", "1:1", "expected the settings as `key: value` lines"),
        ("# comment\nha_ulr: http://h:8123\n", "2:1", "unknown setting \"ha_ulr\" (did you mean ha_url?)"),
        ("log_level: info\nlog_level: debug\n", "2:1", "\"log_level\" is set twice"),
        ("ha_url: \"http://h:8123\n", "2:1", "not valid YAML: found unexpected end of stream (while scanning a quoted scalar at 1:9)"),
        ("ha_url http://h:8123\n", "1:1", "expected the settings as `key: value` lines"),
        ("\tha_url: http://h:8123\n", "1:1", "not valid YAML: found character that cannot start any token"),
        ("ha_url:\n", "1:1", "\"ha_url\" has no value"),
        ("ha_url: [a, b]\n", "1:9", "\"ha_url\" takes one value, not a list"),
        ("ha_token: !secret ha_token\n", "1:11", "\"ha_token\" has the tag !secret, which PrintBridge does not read"),
    ])
    func aBadFileNamesPathLineColumnAndReason(text: String, position: String, reason: String) throws {
        let path = try write("bad-\(abs(text.hashValue)).yaml", text)
        let result = try check(["--config", path, "--dry-run"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("config file \(path):\(position): \(reason)"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func anUnreadableFileAndRunRefuseToStart() throws {
        let result = try check(["--config", directory + "/absent.yaml"])
        #expect(result.status == 78 && result.stderr.contains("config file \(directory)/absent.yaml: cannot be read"))
        // `run` reads the same file and stops on the same error, before connecting anywhere.
        let bad = try write("run-bad.yaml", "ha_url: http://127.0.0.1:1\nbogus: 1\n")
        let run = try CommandRunner.run(["run", "--dry-run", "--config", bad], environment: ["STATE_DIR": directory + "/state"])
        #expect(run.status == 78 && run.stderr.contains("run-bad.yaml:2:1: unknown setting \"bogus\""))
    }

    /// A file saved by a Windows editor: CRLF line endings and a byte-order
    /// mark. Every line reads as its own setting, the first key included.
    @Test func windowsLineEndingsAndAByteOrderMarkReadCorrectly() throws {
        let config = try write("windows.yaml", "\u{FEFF}ha_url: http://127.0.0.1:8123\r\nha_token: crlf-token-123\r\n"
            + "api_token: crlf-api-token-456\r\n# a comment\r\nlog_level: debug\r\napi_listen: off\r\n")
        let result = try check(["--config", config, "--dry-run"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("ha_url: http://127.0.0.1:8123  # from file"), "\(result.stdout)")
        #expect(result.stdout.contains("log_level: debug  # from file"))
        #expect(result.stdout.contains("home assistant: ws://127.0.0.1:8123/api/websocket"))
        #expect(!result.stdout.contains("crlf-token-123") && !result.stdout.contains("crlf-api-token-456"))
    }

    /// Whatever the file holds, check-config prints no secret: not a token
    /// pasted into another setting's value, not one in a token file, not a
    /// password in a URL, not in an error.
    @Test func checkConfigNeverPrintsASecret() throws {
        let tokenFile = try write("ha-token", "file-held-token-789\n")
        let config = try write("pasted.yaml", """
            ha_url: "http://owner:url-password-321@127.0.0.1:8123/?x=api-secret-654"
            ha_token_file: \(tokenFile)
            api_token: api-secret-654
            log_level: "file-held-token-789"
            """)
        let result = try check(["--config", config, "--dry-run"])
        let everything = result.stdout + result.stderr
        for secret in ["api-secret-654", "file-held-token-789", "url-password-321"] {
            #expect(!everything.contains(secret), "\(secret) printed:\n\(everything)")
        }
        #expect(everything.contains("<redacted>"))
        #expect(result.status == 78, "the bad log level is still reported")
    }

    /// `sudo printbridge devices add` made the store root's: the agent, run
    /// as its own user, stops at start with the file, its owner and the fix,
    /// instead of starting "healthy" and failing every registration.
    @Test func aStoreFileTheAgentCannotWriteStopsStartUp() throws {
        let state = directory + "/root-store"
        mkdir(state, 0o777)
        chmod(state, 0o777)
        let made = try CommandRunner.run(
            ["devices", "add", "--token", String(repeating: "ab", count: 32)], environment: ["STATE_DIR": state])
        #expect(made.status == 0, "\(made.stderr)")
        let store = state + "/printbridge.sqlite3"
        let binary = try #require(CommandRunner.binary(repositoryRoot: CommandRunner.repositoryRoot(from: #filePath)))
        let environment = ["STATE_DIR": state, "HA_URL": "http://127.0.0.1:1", "HA_TOKEN": "t", "API_LISTEN": "off"]
        let result: CommandRunner.Result
        if geteuid() == 0 {
            // As root every file is writable: run the agent as nobody, as a service user would be.
            chmod(store, 0o644)
            result = try CommandRunner.execute(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "run", "--dry-run"],
                environment: environment, directory: directory)
        } else {
            chmod(store, 0o444)
            result = try CommandRunner.execute(binary, ["run", "--dry-run"], environment: environment, directory: directory)
        }
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("the device store file \(store) is not writable by"), "\(result.stderr)")
        #expect(result.stderr.contains("fix with: sudo chown"), "\(result.stderr)")
        #expect(!result.stderr.contains("connecting"), "it stops before connecting anywhere")
    }

    /// check-config and run agree: each bad value check-config refuses, run
    /// refuses too, with the same line, before connecting anywhere; and a
    /// value check-config passes, run takes.
    @Test(arguments: [
        ["API_LISTEN": "localhost:3000"], ["API_LISTEN": "0.0.0.0:99999"], ["HA_URL": "ftp://ha.local"],
        ["LOG_LEVEL": "loud"], ["HA_PING_INTERVAL": "-1"], ["APNS_RETRY_MAX": "soon"],
        ["API_TRUSTED_NETWORKS": "home"], ["MILESTONES": "25,150"], ["DRY_RUN": "maybe"],
        ["API_HOME_URL": "192.168.1.20:3000"], ["API_OUTSIDE_URL": "https://printbridge.example.com/pb"],
    ])
    func checkConfigAndRunAgreeOnABadValue(bad: [String: String]) throws {
        let base = ["HA_URL": "http://127.0.0.1:1", "HA_TOKEN": "t", "API_TOKEN": "secret-token-0123456789",
                    "API_LISTEN": "127.0.0.1:0", "STATE_DIR": directory + "/state"]
        let environment = base.merging(bad) { $1 }
        let checked = try check(["--dry-run"], environment: environment)
        #expect(checked.status == 78, "check-config passed \(bad)")
        let problem = try #require(checked.stderr.split(separator: "\n").first.map(String.init), "\(bad)")
        let run = try CommandRunner.run(["run", "--dry-run"], environment: environment)
        #expect(run.status == 78, "run took \(bad): \(run.stderr)")
        #expect(run.stderr.contains(problem), "check-config said \(problem); run said \(run.stderr)")
        #expect(!run.stdout.contains("connecting"))
    }

    /// Trusting a home network is an explicit choice, said plainly; a bad one stops `run`.
    @Test func trustedNetworksAreCheckedAndExplained() throws {
        let base = ["HA_URL": "http://127.0.0.1:1", "HA_TOKEN": "t", "API_TOKEN": "secret-token-0123456789"]
        let good = try check(["--dry-run"], environment: base.merging(["API_TRUSTED_NETWORKS": "192.168.1.0/24"]) { $1 })
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.contains("no token needed from 192.168.1.0/24 for what the unmodified app calls (registration, its own settings)"))
        // Issue 34: a warning names what to change, but is no failure.
        #expect(good.stderr.contains("warning: API_TRUSTED_NETWORKS lets any device on those networks register without a credential"))
        // The Supervisor's ingress proxy is trusted only inside an add-on (SUPERVISOR_TOKEN set).
        #expect(!good.stdout.contains("172.30.32.2"))
        let addOn = try check(["--dry-run"], environment: base.merging(["SUPERVISOR_TOKEN": "supervisor-token"]) { $1 })
        #expect(addOn.status == 0, "\(addOn.stderr)")
        #expect(addOn.stdout.contains("api: no token needed from 172.30.32.2/32 (Home Assistant's ingress proxy) for what"))
        #expect(!addOn.stderr.contains("warning: API_TRUSTED_NETWORKS"), "the add-on's ingress proxy is no trusted network of the user's")
        let bad = try check(["--dry-run"], environment: base.merging(["API_TRUSTED_NETWORKS": "home"]) { $1 })
        #expect(bad.status == 78 && bad.stderr.contains("API_TRUSTED_NETWORKS: \"home\" is not an IP address"))
    }

    @Test func everyOfflineProblemIsReported() throws {
        let notADirectory = try write("state-file", "")
        let config = try write("problems.yaml", """
            ha_url: ftp://h:8123
            log_level: loud
            ha_ping_interval: soon
            api_listen: nowhere
            milestones: 25,fifty
            """)
        var environment = apns.environment
        environment["APNS_KEY_PATH"] = apns.workdir + "/bad-rsa.p8"
        environment["STATE_DIR"] = notADirectory
        let result = try check(["--config", config], environment: environment)
        #expect(result.status == 78)
        // Each value from the file is named by its key, and its value's line and column there.
        for expected in [
            "log_level (\(config):2:12) must be one of", "ha_ping_interval (\(config):3:19) must be a positive number",
            "api_listen (\(config):4:13) must be host:port", "milestones (\(config):5:13) must be whole percentages",
            "ha_url (\(config):1:9)", "RSA-2048 key", "state directory \(notADirectory) is not writable",
            "problem(s) in the configuration",
        ] {
            #expect(result.stderr.contains(expected), "\(expected) missing from: \(result.stderr)")
        }
        #expect(result.stderr.contains("ftp"), "the bad HA_URL is named: \(result.stderr)")
        #expect(!result.stdout.contains("configuration OK"))
    }
}

extension ConfigCommandTests {
    /// `check-config --help` lists every setting with what it does: each key
    /// the example settings file shows, commented out or not, is there.
    @Test func helpListsEverySetting() throws {
        let help = try CommandRunner.run(["check-config", "--help"])
        #expect(help.status == 0, "\(help.stderr)")
        let example = try String(
            contentsOfFile: CommandRunner.repositoryRoot(from: #filePath) + "/Deploy/printbridge.example.yaml", encoding: .utf8)
        let keys = example.split(separator: "\n").compactMap { line -> String? in
            let text = line.hasPrefix("# ") ? line.dropFirst(2) : line[...]
            guard let colon = text.firstIndex(of: ":"), text[..<colon].allSatisfy({ $0.isLowercase || $0 == "_" }),
                colon != text.startIndex
            else { return nil }
            return String(text[..<colon])
        }
        #expect(keys.count >= 25, "\(keys)")
        for key in keys where key != "printers" {
            #expect(help.stdout.contains("\(key): "), "\(key) missing from check-config --help")
        }
    }

    @Test func anAlertLanguageWithoutTextsIsRefusedAndTheOthersAccepted() throws {
        let refused = try check(["--dry-run"], environment: ["HA_URL": "http://h:8123", "HA_TOKEN": "t", "ALERT_LANGUAGE": "it"])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("alert language \"it\" has no texts; languages: de, en, es, fr"), "\(refused.stderr)")
        let path = try write("language.yaml", "ha_url: http://h:8123\nalert_language: es\nbed_cooled_below: 40\nreason_window: 2\n")
        let accepted = try check(["--config", path, "--dry-run"], environment: ["HA_TOKEN": "t", "API_TOKEN": "a"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout.contains("alert_language: es  # from file"), "\(accepted.stdout)")
        let hot = try write("hot.yaml", "ha_url: http://h:8123\nbed_cooled_below: 150\n")
        let tooHot = try check(["--config", hot, "--dry-run"], environment: ["HA_TOKEN": "t"])
        #expect(tooHot.status == 78 && tooHot.stderr.contains("bed-cooled temperature must be 0–100 °C"), "\(tooHot.stderr)")
    }

    @Test func theDeployedExampleIsValid() throws {
        let example = CommandRunner.repositoryRoot(from: #filePath) + "/Deploy/printbridge.example.yaml"
        let result = try check(["--config", example, "--dry-run"], environment: ["HA_TOKEN": "t", "API_TOKEN": "a"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("ha_url: http://homeassistant.local:8123  # from file"))
        #expect(result.stdout.contains("configuration OK"))
    }
}
