import Foundation
import TestSupport
import Testing

/// The Home Assistant add-on started as Home Assistant's base image starts
/// it: s6-overlay runs rootfs/etc/services.d/printbridge/run through its
/// shebang, `with-contenv bashio`, with no inherited environment; the
/// container's variables come from a directory of files; bashio reads the
/// options from the Supervisor. The mock HA is that Supervisor too.
@Suite(.serialized) struct AddOnStartTests {
    static let service = DaemonTests.root + "/Deploy/homeassistant-addon/printbridge/rootfs/etc/services.d/printbridge/run"
    static let doubles = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("AddOn").path
    static let apiToken = "addon-api-token-4f1c9e"

    /// A scratch "container": bin/ with with-contenv, bashio and printbridge,
    /// bin/container_environment/ with one file per variable, data/.
    struct Container {
        let directory = DaemonTests.temporaryDirectory("addon")
        var bin: String { directory + "/bin" }

        init(environment: [String: String]) throws {
            let files = FileManager.default
            try files.createDirectory(atPath: bin + "/container_environment", withIntermediateDirectories: true)
            try files.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
            for tool in ["with-contenv", "bashio"] {
                try files.copyItem(atPath: AddOnStartTests.doubles + "/" + tool, toPath: bin + "/" + tool)
            }
            let binary = try #require(CommandRunner.binary(repositoryRoot: DaemonTests.root))
            try files.createSymbolicLink(atPath: bin + "/printbridge", withDestinationPath: binary)
            for (name, value) in environment {
                try value.write(toFile: bin + "/container_environment/" + name, atomically: true, encoding: .utf8)
            }
        }

        /// The service as s6 starts it: `with-contenv bashio run`, nothing inherited but PATH.
        func start(contenv: Bool = true, out: String, err: String) throws -> ChildProcess {
            let outFD = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            let errFD = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            defer {
                close(outFD)
                close(errFD)
            }
            let command = (contenv ? [bin + "/with-contenv"] : []) + ["bashio", AddOnStartTests.service]
            return try ChildProcess(
                "/usr/bin/env", ["-i", "PATH=\(bin):/usr/local/bin:/usr/bin:/bin"] + command,
                environment: ["PRINTBRIDGE_TEST_MARKER": "inherited"], stdout: .descriptor(outFD), stderr: .descriptor(errFD))
        }
    }

    static func options(_ changes: [String: Any] = [:]) throws -> String {
        var options: [String: Any] = [
            "apns_team_id": "", "apns_key_id": "", "apns_key_file": "/ssl/AuthKey.p8",
            "apns_bundle_id": "com.samduncan.PrinterMonitor", "apns_production": false, "api_token": apiToken,
            "milestones": "50", "dry_run": true, "log_level": "debug",
            "alert_language": "de", "bed_cooled_below": 40,
        ]
        options.merge(changes) { $1 }
        let path = NSTemporaryDirectory() + "printbridge-options-\(UUID().uuidString.prefix(8)).json"
        try JSONSerialization.data(withJSONObject: options).write(to: URL(fileURLWithPath: path))
        return path
    }

    func text(_ path: String) -> String {
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }

    func wait(upTo seconds: Double, _ condition: () -> Bool) -> Bool { waitUntil(upTo: seconds, condition) }

    @Test func theServiceStartsThroughWithContenvAndReachesHomeAssistant() throws {
        let ha = try DaemonTests.MockHA(
            events: "bambu-full-print.jsonl", arguments: ["--supervisor-options", try Self.options(), "--start-delay", "1"])
        let container = try Container(environment: [
            "SUPERVISOR_TOKEN": DaemonTests.token, "SUPERVISOR_API": "http://127.0.0.1:\(ha.port)",
            "STATE_DIR": "", "API_LISTEN": "127.0.0.1:0",
            "START_SETTLE": "0", "CANCEL_WINDOW": "0", "FLICKER_WINDOW": "0", "REASON_WINDOW": "0",
        ].merging(["STATE_DIR": DaemonTests.temporaryDirectory("addon-data")]) { $1 })
        let out = container.directory + "/out.log", err = container.directory + "/err.log"
        let service = try container.start(out: out, err: err)
        defer { if service.isRunning { service.terminate() } }
        let log = { self.text(out) + self.text(err) }
        #expect(wait(upTo: 30) { log().contains("print ended  ") && log().contains("print.outcome=complete") }, "\(log().suffix(3000))")
        #expect(log().contains("connected to Home Assistant  ha.url=ws://127.0.0.1:\(ha.port)/core/websocket"), "HA through the Supervisor's proxy path")
        #expect(log().contains("subscribed to state changes"))
        #expect(log().contains("Dry run: pushes are written to this log"), "the dry_run option")
        #expect(log().contains("Home Assistant's ingress proxy opens the status page without the API token  api.ingress_proxy=172.30.32.2/32"), "the status page through ingress")
        #expect((ha.stats()["supervisor_requests"] ?? 0) > 0, "bashio asked the Supervisor for the options")

        // printbridge exec'ed in the service's place: its environment is the container's, not the test's.
        let environ = String(decoding: FileManager.default.contents(atPath: "/proc/\(service.pid)/environ") ?? Data(), as: UTF8.self)
            .split(separator: "\0").map(String.init)
        #expect(environ.contains("HA_URL=ws://127.0.0.1:\(ha.port)/core/websocket"))
        #expect(environ.contains("MILESTONES=50") && environ.contains("LOG_LEVEL=debug"))
        #expect(environ.contains("ALERT_LANGUAGE=de") && environ.contains("BED_COOLED_BELOW=40"))
        #expect(environ.contains("GNUTLS_NO_IMPLICIT_INIT=1"))
        #expect(environ.contains { $0.hasPrefix("API_TOKEN_FILE=") })
        #expect(!environ.contains { $0.contains(Self.apiToken) }, "the API token is in a file, not the environment")
        #expect(!environ.contains { $0.hasPrefix("PRINTBRIDGE_TEST_MARKER=") }, "nothing inherited")
        #expect(!log().contains(Self.apiToken) && !log().contains(DaemonTests.token), "no secret in the log")

        // The container's HEALTHCHECK.
        let port = try #require(log().split(separator: "\n").first { $0.contains("API listening") }?
            .split(separator: "api.port=").last.flatMap { Int($0.prefix { $0.isNumber }) })
        let health = try CommandRunner.run(["health"], environment: ["API_LISTEN": "0.0.0.0:\(port)"])
        #expect(health.status == 0, "\(health.stdout)\(health.stderr)")
        service.terminate()
        #expect(service.waitForExit(upTo: 10) == 0)
    }

    @Test func withoutWithContenvTheServiceHasNoSupervisorTokenAndSaysSo() throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--supervisor-options", try Self.options()])
        let container = try Container(environment: [
            "SUPERVISOR_TOKEN": DaemonTests.token, "SUPERVISOR_API": "http://127.0.0.1:\(ha.port)",
        ])
        let out = container.directory + "/out.log", err = container.directory + "/err.log"
        let service = try container.start(contenv: false, out: out, err: err)
        // A plain script under s6 sees neither the token nor the Supervisor's
        // address: bashio cannot read the options, and nothing starts.
        #expect(service.waitForExit(upTo: 20) != 0)
        #expect(text(err).contains("Failed to get addon config from Supervisor API"), "\(text(err))")
    }

    @Test func anEmptyAPITokenStopsTheAddOnWithItsReason() throws {
        let ha = try DaemonTests.MockHA(
            events: "bambu-full-print.jsonl", arguments: ["--supervisor-options", try Self.options(["api_token": ""])])
        let container = try Container(environment: [
            "SUPERVISOR_TOKEN": DaemonTests.token, "SUPERVISOR_API": "http://127.0.0.1:\(ha.port)",
            "STATE_DIR": DaemonTests.temporaryDirectory("addon-data"),
        ])
        let out = container.directory + "/out.log", err = container.directory + "/err.log"
        let service = try container.start(out: out, err: err)
        #expect(service.waitForExit(upTo: 20) == 1)
        #expect(text(err).contains("Set api_token in the add-on's configuration"), "\(text(err))")
    }

    @Test func withoutDryRunAMissingAppleKeySettingStopsWithPrintBridgesMessage() throws {
        let ha = try DaemonTests.MockHA(
            events: "bambu-full-print.jsonl", arguments: ["--supervisor-options", try Self.options(["dry_run": false])])
        let container = try Container(environment: [
            "SUPERVISOR_TOKEN": DaemonTests.token, "SUPERVISOR_API": "http://127.0.0.1:\(ha.port)",
            "STATE_DIR": DaemonTests.temporaryDirectory("addon-data"), "API_LISTEN": "127.0.0.1:0",
        ])
        let out = container.directory + "/out.log", err = container.directory + "/err.log"
        let service = try container.start(out: out, err: err)
        #expect(service.waitForExit(upTo: 20) == 78)
        #expect(text(err).contains("APNS_TEAM_ID"), "\(text(err))")
    }
}
