import APNsClient
import Foundation
import TestSupport
import Testing

/// `printbridge run` end to end: the real binary against a mock Home
/// Assistant (MockHA/mock_ha.py, Python websockets) on 127.0.0.1.
@Suite(.serialized) struct DaemonTests {
    static let root = CommandRunner.repositoryRoot(from: #filePath)
    static let token = "test-ha-token"
    static let apiToken = "test-api-token-0123456789"

    /// A mock HA streaming one recorded file.
    final class MockHA {
        let port: Int
        let statsPath: String
        private let mock: MockProcess

        init(events: String, arguments: [String] = []) throws {
            statsPath = NSTemporaryDirectory() + "printbridge-ha-\(UUID().uuidString.prefix(8)).json"
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("MockHA/mock_ha.py").path
            mock = try MockProcess(script: script, arguments: [
                "--events", events.hasPrefix("/") ? events : DaemonTests.root + "/SampleEvents/" + events, "--token", DaemonTests.token, "--stats", statsPath,
            ] + arguments)
            port = mock.port
        }

        deinit {
            try? FileManager.default.removeItem(atPath: statsPath)
            try? FileManager.default.removeItem(atPath: statsPath + ".tmp")
        }

        /// The mock's counters (its stats file, written whole).
        func stats() -> [String: Int] { Self.counters(rawStats()) }

        func rawStats() -> [String: Any] {
            guard let data = FileManager.default.contents(atPath: statsPath),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return [:] }
            return object
        }

        static func counters(_ raw: [String: Any]) -> [String: Int] { raw.compactMapValues { $0 as? Int } }

        /// One WebSocket connection as the mock saw it.
        struct Connection {
            /// 1 for the first connection, in order.
            var number: Int
            /// state_changed events sent on it.
            var events: Int
            /// Its subscription's result was sent.
            var subscribed: Bool
        }

        static func connections(_ raw: [String: Any]) -> [Connection] {
            let all = raw["by_connection"] as? [String: [String: Int]] ?? [:]
            return all.compactMap { key, value in
                Int(key).map { Connection(number: $0, events: value["events"] ?? 0, subscribed: value["subscribed"] == 1) }
            }.sorted { $0.number < $1.number }
        }
    }

    /// A running `printbridge run --dry-run`, its output in files.
    final class Agent {
        let process: ChildProcess
        let outPath = NSTemporaryDirectory() + "printbridge-run-\(UUID().uuidString.prefix(8)).out"
        let errPath = NSTemporaryDirectory() + "printbridge-run-\(UUID().uuidString.prefix(8)).err"

        let stateDirectory: String

        init(
            port: Int, devices: String, environment extra: [String: String] = [:], dryRun: Bool = true,
            stateDirectory: String? = nil
        ) throws {
            self.stateDirectory = stateDirectory ?? DaemonTests.temporaryDirectory("state")
            let binary = try #require(CommandRunner.binary(repositoryRoot: DaemonTests.root))
            var environment = ProcessInfo.processInfo.environment
            environment["HA_URL"] = "http://127.0.0.1:\(port)"
            environment["HA_CA_FILE"] = nil
            environment["STATE_DIR"] = self.stateDirectory
            environment["API_LISTEN"] = "127.0.0.1:0"
            environment["API_TOKEN"] = DaemonTests.apiToken
            environment["HA_TOKEN"] = DaemonTests.token
            environment["GNUTLS_NO_IMPLICIT_INIT"] = "1"  // as every deployment sets it
            // The mock plays a recording hours long in a second of wall time:
            // verdicts held for seconds would span the whole print. The holds
            // themselves are the planner's tests' and the real HA's.
            environment["START_SETTLE"] = "0"
            environment["CANCEL_WINDOW"] = "0"
            environment["FLICKER_WINDOW"] = "0"
            environment["REASON_WINDOW"] = "0"
            let out = open(outPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            let err = open(errPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            defer {
                close(out)
                close(err)
            }
            process = try ChildProcess(
                binary, ["run", "--devices", devices] + (dryRun ? ["--dry-run"] : []),
                environment: environment.merging(extra) { $1 }, stdout: .descriptor(out), stderr: .descriptor(err))
        }

        deinit {
            if process.isRunning { process.terminate() }
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }

        /// Every JSON log record on stdout.
        var records: [[String: Any]] {
            let text = String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
            return text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        /// Log records with this message whose metadata has these values
        /// (compared as text: `["devices.count": "1"]`).
        func logged(_ message: String, _ metadata: [String: String] = [:]) -> [[String: Any]] {
            records.filter { record in
                record["message"] as? String == message
                    && metadata.allSatisfy { key, value in record[key].map { "\($0)" } == value }
            }
        }

        /// The push records (dry run or APNs outcome), with their push.* metadata
        /// under short names.
        var pushes: [[String: Any]] {
            records.filter { ($0["message"] as? String)?.hasPrefix("push ") == true }.map { record in
                var push: [String: Any] = [:]
                push["event"] = record["push.event"]
                push["device"] = record["push.device"]
                push["push_type"] = record["push.type"]
                push["priority"] = record["push.priority"] as? Int  // a JSON number, so jq can compare it
                push["outcome"] = record["push.outcome"]
                push["payload"] = record["push.payload"]
                push["printer"] = record["printer.prefix"]
                return push
            }
        }

        /// Everything the agent wrote: log records and stderr.
        var log: String {
            String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
                + String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
        }

        /// Alerts as "device event", in order.
        var alerts: [String] {
            pushes.filter { $0["push_type"] as? String == "alert" }.map {
                "\(($0["device"] as? String ?? "").prefix(2)) \($0["event"] as? String ?? "")"
            }
        }

        /// Waits until `condition` holds or `seconds` pass (`waitUntil`).
        @discardableResult
        func wait(upTo seconds: Double, until condition: () -> Bool) -> Bool {
            waitUntil(upTo: seconds, condition)
        }

        /// The port of the app's API, once the agent has logged it.
        var apiPort: Int? {
            records.first { ($0["message"] as? String)?.hasPrefix("API listening") == true }?["api.port"] as? Int
        }

        /// A value on the agent's /metrics (summed over the series whose
        /// labels contain `filter`); nil while /metrics does not answer.
        func metric(_ name: String, containing filter: String = "") -> Double? {
            guard let port = apiPort, let reply = LocalHTTP.get(port: port, "/metrics"), reply.status == 200 else { return nil }
            return DaemonTests.value(reply.body, name, containing: filter)
        }

        /// Whether the agent has taken in all the mock HA had to send it: the
        /// mock has sent its whole recording; on each of the agent's
        /// connections (those after the mock's first `connectionsBefore`,
        /// which were another agent's) the snapshot was handled ("subscribed
        /// to state changes" is logged after it) and every event sent
        /// arrived (printbridge_ha_events_total, counted as the link reads
        /// them). The agent handles whatever arrived before it exits, so
        /// after this and `stop()` the log holds every push those messages
        /// made: what a test needs before it says something did *not* happen.
        func hasReceivedEverything(from ha: MockHA, connectionsBefore: Int = 0) -> Bool {
            let raw = ha.rawStats()
            let mine = MockHA.connections(raw).filter { $0.number > connectionsBefore }
            let subscribed = mine.filter(\.subscribed).count
            guard MockHA.counters(raw)["recording_done"] == 1, subscribed > 0,
                logged("subscribed to state changes").count >= subscribed
            else { return false }
            return metric("printbridge_ha_events_total") == Double(mine.map(\.events).reduce(0, +))
        }

        /// User and system CPU time so far, in clock ticks (/proc/PID/stat).
        var cpuTicks: Int {
            let stat = (try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8)) ?? ""
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            guard fields.count > 13 else { return -1 }
            return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        }

        /// Resident memory now (VmRSS), in bytes.
        var residentBytes: Int { statusBytes("VmRSS") }

        /// Anonymous resident memory now (RssAnon: heaps and stacks, not the code), in bytes.
        var anonymousBytes: Int { statusBytes("RssAnon") }

        /// A kB figure of /proc/PID/status, in bytes.
        func statusBytes(_ field: String) -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }

        /// SIGTERM, then the exit status; SIGKILL (137) if it has not
        /// stopped within a minute, so a stuck agent fails its test instead
        /// of hanging the run.
        func stop() -> Int32 {
            process.terminate()
            return process.waitForExit(upTo: 60)
        }
    }

    /// name{labels} value → value, summed over every series of `name` whose
    /// labels contain `filter`.
    static func value(_ exposition: String, _ name: String, containing filter: String = "") -> Double {
        exposition.split(separator: "\n").filter { line in
            !line.hasPrefix("#") && (line.hasPrefix(name + " ") || line.hasPrefix(name + "{")) && (filter.isEmpty || line.contains(filter))
        }.compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
    }

    /// POSTs a JSON body to the agent's API with the test's API token; the status.
    static func post(_ port: Int, _ path: String, _ body: String) async throws -> Int {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(DaemonTests.apiToken)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    static func temporaryDirectory(_ name: String) -> String {
        let path = NSTemporaryDirectory() + "printbridge-\(name)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Every notification on, a Live Activity for the X1C.
    static func devicesFile() throws -> String {
        let path = NSTemporaryDirectory() + "printbridge-devices-\(UUID().uuidString.prefix(8)).json"
        let device = String(repeating: "ab", count: 32)
        let activity = String(repeating: "cd", count: 40)
        try #"[{"apnsToken":"\#(device)","activityTokens":{"x1c_00m09a350100123":"\#(activity)"}}]"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let fullPrintAlerts = ["ab started", "ab milestone", "ab milestone", "ab milestone", "ab complete"]

    @Test func aLivePrintProducesItsPushes() throws {
        let ha = try MockHA(events: "bambu-full-print.jsonl")
        let agent = try Agent(port: ha.port, devices: try Self.devicesFile())
        // The Live Activity's end and the silent refresh (other tokens: either may be logged last).
        #expect(agent.wait(upTo: 30) {
            agent.alerts.count >= 5 && agent.pushes.contains { $0["event"] as? String == "end" }
                && agent.pushes.contains { $0["event"] as? String == "history" }
        })
        // Exactly these alerts: counted once every event has been handled and the agent stopped.
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.stop() == 0)
        #expect(agent.alerts == Self.fullPrintAlerts)
        #expect(agent.pushes.filter { $0["event"] as? String == "update" }.first?["priority"] as? Int == 10)
        let refresh = agent.pushes.filter { $0["event"] as? String == "history" }
        #expect(refresh.count == 1 && refresh.first?["push_type"] as? String == "background"
            && refresh.first?["priority"] as? Int == 5)
        #expect(agent.log.contains("subscribed to state changes"))
        #expect(agent.log.contains("stopped"))
        #expect(!agent.log.contains(Self.token), "the token is never logged")
    }

    /// `run`'s threads (issue 51): the main one (waiting), one of its own
    /// per blocking loop, and libdispatch's, which run Swift's tasks (the
    /// default executor) and hold the timers, the signals and the store's
    /// watch on their one event loop (named after libdispatch's root queues,
    /// `com.apple.root.default-qos…`, of which Linux keeps the last 15 bytes).
    /// No thread of ours only waits on one descriptor or a timer any more:
    /// pb-signals, pb-timers and pb-store-watch are gone.
    @Test func theAgentHasAThreadOfItsOwnOnlyForEachBlockingLoop() throws {
        let ha = try MockHA(events: "bambu-full-print.jsonl")
        let agent = try Agent(port: ha.port, devices: try Self.devicesFile())
        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") })
        func threadNames() -> [String] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(agent.process.pid)/task")) ?? []
            return tasks.compactMap { try? String(contentsOfFile: "/proc/\(agent.process.pid)/task/\($0)/comm", encoding: .utf8) }
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        // --dry-run: no APNs client. The WAL's sync starts at the first
        // commit, which the alerts made; the push's log line may come before
        // the store's thread has committed (and started it), so wait for it.
        var names = threadNames()
        agent.wait(upTo: 30) {
            names = threadNames()
            return names.contains("pb-wal-sync")
        }
        #expect(Set(names.filter { $0.hasPrefix("pb-") }) == ["pb-ha-link", "pb-api", "pb-store", "pb-wal-sync"], "\(names)")
        #expect(names.filter { $0 == "printbridge" }.count == 1, "\(names)")
        let dispatch = names.filter { $0 != "printbridge" && !$0.hasPrefix("pb-") }
        #expect(dispatch.allSatisfy { $0.hasSuffix("-qos") || $0.hasSuffix("-qos.overcommit") }, "\(names)")
        #expect(agent.stop() == 0)
    }

    @Test func anHARestartMidPrintDoesNotRepeatTheStart() throws {
        let ha = try MockHA(events: "bambu-full-print.jsonl", arguments: ["--drop-after", "80"])
        let agent = try Agent(port: ha.port, devices: try Self.devicesFile())
        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") })
        // "No duplicate" holds only once the resync and every event after it
        // have been handled: all of it received, then the agent stopped.
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.stop() == 0)
        #expect(ha.stats()["connections"] == 2)
        #expect(agent.alerts == Self.fullPrintAlerts, "resync brings no duplicate")
        #expect(!agent.logged("reconnecting to Home Assistant").isEmpty)
    }

    @Test func aPrintThatFinishedWhileDisconnectedCompletesExactlyOnce() throws {
        let ha = try MockHA(events: "bambu-full-print.jsonl", arguments: ["--drop-after", "80", "--skip-while-down"])
        let agent = try Agent(port: ha.port, devices: try Self.devicesFile())
        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") })
        // Exactly once: counted after the second connection's snapshot has been handled and the agent stopped.
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.stop() == 0)
        #expect(ha.stats()["connections"] == 2)
        #expect(agent.alerts.filter { $0 == "ab complete" }.count == 1)
        #expect(agent.alerts.filter { $0 == "ab started" }.count == 1)
        #expect(agent.pushes.filter { $0["event"] as? String == "end" }.count == 1, "the Live Activity ends too")
    }

    @Test func aRejectedTokenIsReportedOnceWithoutAHotLoop() throws {
        let ha = try MockHA(events: "bambu-full-print.jsonl", arguments: ["--reject-token"])
        let agent = try Agent(port: ha.port, devices: try Self.devicesFile())
        #expect(agent.wait(upTo: 30) { agent.log.contains("rejected the access token") })
        // No hot loop: once the rejection is handled, the one retry is
        // scheduled minutes away, and it was the only attempt so far (the
        // mock counts an attempt before it answers it).
        #expect(agent.wait(upTo: 30) { !agent.logged("reconnecting to Home Assistant").isEmpty })
        #expect(agent.logged("reconnecting to Home Assistant").map { "\($0["reconnect.in_seconds"] ?? "")" } == ["300"])
        #expect(ha.stats()["auth_attempts"] == 1, "retries wait minutes")
        #expect(agent.process.isRunning)
        #expect(agent.log.contains("trying again in 5 minutes"))
        #expect(agent.stop() == 0)
    }

    @Test func missingSettingsAreConfigurationErrors() throws {
        let noURL = try CommandRunner.run(["run", "--dry-run"], environment: ["HA_URL": "", "HA_TOKEN": "x"])
        #expect(noURL.status == 78)
        #expect(noURL.stderr.contains("HA_URL not set"))
        let badURL = try CommandRunner.run(["run", "--dry-run"], environment: ["HA_URL": "ftp://ha", "HA_TOKEN": "x"])
        #expect(badURL.status == 78)
        let noToken = try CommandRunner.run(
            ["run", "--dry-run"], environment: ["HA_URL": "http://127.0.0.1:1", "HA_TOKEN": "", "HA_TOKEN_FILE": ""])
        #expect(noToken.status == 78)
        #expect(noToken.stderr.contains("HA_TOKEN or HA_TOKEN_FILE not set"))
    }
}

/// What HA's WebSocket may throw at the link: huge, fragmented and coalesced
/// frames, and a silent server.
@Suite(.serialized) struct DaemonProtocolTests {
    typealias MockHA = DaemonTests.MockHA
    typealias Agent = DaemonTests.Agent

    @Test func aFiveMegabyteSnapshotInFragmentsAndCoalescedEvents() throws {
        let ha = try MockHA(events: "bambu-full-print.jsonl", arguments: ["--big-snapshot", "5", "--fragment", "--coalesce"])
        let agent = try Agent(port: ha.port, devices: try DaemonTests.devicesFile())
        #expect(agent.wait(upTo: 60) { agent.alerts.contains("ab complete") })
        // Everything sent and handled (the mock's counters are final then too).
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.stop() == 0)
        #expect(agent.alerts == DaemonTests.fullPrintAlerts)
        #expect((ha.stats()["largest_message"] ?? 0) > 5_000_000)
        #expect(ha.stats()["coalesce_requested"] == 1)
    }

    @Test func aLargeSnapshotsMemoryIsGivenBack() throws {
        /// Resident bytes once the snapshot is applied and the agent idles.
        func idleResidentBytes(_ arguments: [String]) throws -> Int {
            let ha = try MockHA(events: "bambu-full-print.jsonl", arguments: arguments + ["--start-delay", "60"])
            let agent = try Agent(port: ha.port, devices: try DaemonTests.devicesFile())
            #expect(agent.wait(upTo: 30) { agent.log.contains("subscribed to state changes") })
            // Until the agent has taken the huge event (counted once the link
            // has read and parsed it), done with what it was sent, and given
            // the memory back: the heap is trimmed 0.5 s after a bulk message,
            // so a whole second without CPU time comes after that trim.
            // (Generous: making, sending and parsing 50 MB took over a minute
            // on a machine at load 15.)
            if arguments.contains("--huge-event") {
                #expect(agent.wait(upTo: 300) { (agent.metric("printbridge_ha_events_total") ?? 0) >= 1 })
            }
            var busy = agent.cpuTicks
            #expect(agent.wait(upTo: 300) {
                Thread.sleep(forTimeInterval: 1)
                defer { busy = agent.cpuTicks }
                return agent.cpuTicks == busy
            })
            let bytes = agent.residentBytes
            #expect(agent.stop() == 0)
            return bytes
        }
        let small = try idleResidentBytes([])
        let large = try idleResidentBytes(["--big-snapshot", "5"])
        // Kept by the allocator, the 5 MB snapshot's frame and parse hold ~12 MB.
        #expect(large - small < 4 << 20, "idle after a small snapshot: \(small) bytes; after a 5 MB one: \(large)")
        // A 50 MB event (fragments joined, then parsed: it is a printer's).
        let huge = try idleResidentBytes(["--huge-event", "50"])
        #expect(huge - small < 4 << 20, "idle after a small snapshot: \(small) bytes; after a 50 MB event: \(huge)")
    }

    /// HA's writer sends whatever is queued as one array: a pong or a result
    /// behind an event must reach the session, or every ping interval ends in
    /// "no pong" and a reconnect with a full get_states.
    @Test func pongsAndResultsBatchedBehindEventsKeepTheConnection() throws {
        let ha = try MockHA(events: "bambu-full-print.jsonl", arguments: ["--batch-replies", "--coalesce"])
        let agent = try Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(),
            environment: ["HA_PING_INTERVAL": "1", "HA_PONG_TIMEOUT": "1"])
        // The mock counts a ping when it reads it and the batched reply when
        // it sends it, so wait for the replies themselves: the
        // bambu_lab_event subscription's result and four pongs. A fifth ping
        // proves the fourth pong reached the session: with the timeout equal
        // to the interval, a missing pong closes the connection instead.
        #expect(agent.wait(upTo: 60) { (ha.stats()["batched_replies"] ?? 0) >= 5 && (ha.stats()["pings"] ?? 0) >= 5 },
                "mock HA: \(ha.rawStats())")
        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") })
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.stop() == 0)
        let stats = ha.stats()
        #expect(stats["connections"] == 1, "no reconnect: \(agent.log)")
        #expect((stats["batched_replies"] ?? 0) >= 5, "the bambu_lab_event subscription's result and the pongs")
        #expect(!agent.log.contains("no pong"))
        #expect(agent.alerts == DaemonTests.fullPrintAlerts)
    }

    /// A server that takes the connection and never answers the handshake:
    /// SIGTERM still stops the agent at once (it waited minutes for
    /// libwebsockets' own timeout before).
    @Test func aHandshakeThatNeverAnswersDoesNotHoldUpTheStop() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("MockHA/silent_server.py").path
        let stats = NSTemporaryDirectory() + "printbridge-silent-\(UUID().uuidString.prefix(8)).json"
        defer {
            try? FileManager.default.removeItem(atPath: stats)
            try? FileManager.default.removeItem(atPath: stats + ".tmp")
        }
        let silent = try MockProcess(script: script, arguments: ["--stats", stats])
        let agent = try Agent(port: silent.port, devices: try DaemonTests.devicesFile())
        // Stopped mid-handshake: the server has the agent's upgrade request and answers nothing.
        #expect(agent.wait(upTo: 30) {
            let data = FileManager.default.contents(atPath: stats) ?? Data()
            return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Int])?["bytes"] ?? 0 > 0
        })
        let stopped = Date()
        agent.process.terminate()
        #expect(agent.process.waitForExit(upTo: 10) == 0)
        #expect(Date().timeIntervalSince(stopped) < 5, "stopped in \(Date().timeIntervalSince(stopped)) s")
        withExtendedLifetime(silent) {}
    }

    @Test func aServerThatStopsAnsweringPingsIsLeft() throws {
        let ha = try MockHA(events: "bambu-full-print.jsonl", arguments: ["--stall-pongs"])
        let agent = try Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(),
            environment: ["HA_PING_INTERVAL": "1", "HA_PONG_TIMEOUT": "1"])
        #expect(agent.wait(upTo: 30) { (ha.stats()["connections"] ?? 0) >= 2 })
        #expect(agent.wait(upTo: 30) { agent.log.contains("no pong from Home Assistant") })
        #expect((ha.stats()["pings"] ?? 0) >= 1)
        // The reconnect's resync is handled once its "subscribed" is logged; stopped, the log is whole.
        #expect(agent.wait(upTo: 30) { agent.logged("subscribed to state changes").count >= 2 })
        #expect(agent.stop() == 0)
        #expect(agent.alerts.filter { $0 == "ab started" }.count == 1, "the reconnect repeats nothing")
    }
}

/// The whole path: mock HA → printbridge run → mock APNs.
@Suite(.serialized) struct DaemonDeliveryTests {
    @Test func pushesReachAPNsAndShutdownIsClean() throws {
        let apns = try MockAPNsServer()
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl")
        let devices = try DaemonTests.devicesFile()
        let agent = try DaemonTests.Agent(port: ha.port, devices: devices, environment: apns.environment, dryRun: false)
        // The Live Activity's end is the print's last push; every event
        // handled and the agent stopped (pushes in flight get their answer
        // first), each push's outcome is in the log.
        #expect(agent.wait(upTo: 30) {
            agent.pushes.contains { $0["event"] as? String == "end" && $0["outcome"] as? String == "delivered" }
        })
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.stop() == 0)
        let outcomes = agent.pushes
        #expect(outcomes.allSatisfy { $0["outcome"] as? String == "delivered" }, "\(outcomes)")
        #expect(outcomes.filter { $0["push_type"] as? String == "alert" }.map { $0["event"] as? String } ==
                ["started", "milestone", "milestone", "milestone", "complete"])
        #expect(try apns.stat("connections") == 1)
        #expect(try apns.stat("requests") == outcomes.count)
        #expect(agent.log.contains("stopped"))
    }
}

@Suite struct RecordTests {
    /// A recording replays to exactly what replaying the source gives.
    @Test func aRecordingReplaysLikeTheSessionItRecorded() throws {
        // HA goes away for good once it has sent the whole recording: the
        // recorder's "disconnected" line comes after every frame it got, so
        // the test stops it then rather than after a fixed time.
        let never = NSTemporaryDirectory() + "printbridge-never-\(UUID().uuidString.prefix(8))"
        let ha = try DaemonTests.MockHA(events: "bambu-pause-resume.jsonl", arguments: ["--drop-at-end", "--hold-reconnects", never])
        let path = NSTemporaryDirectory() + "printbridge-recording-\(UUID().uuidString.prefix(8)).jsonl"
        let output = NSTemporaryDirectory() + "printbridge-record-\(UUID().uuidString.prefix(8)).out"
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: output)
        }
        let binary = try #require(CommandRunner.binary(repositoryRoot: DaemonTests.root))
        let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let recorder = try ChildProcess(
            binary, ["record", "--out", path],
            environment: ProcessInfo.processInfo.environment.merging(
                ["HA_URL": "http://127.0.0.1:\(ha.port)", "HA_TOKEN": DaemonTests.token]) { $1 },
            stdout: .descriptor(fd), stderr: .descriptor(fd))
        close(fd)
        let log = { String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self) }
        #expect(waitUntil(upTo: 60) { log().contains("disconnected from Home Assistant") }, "\(log())")
        recorder.terminate()
        #expect(recorder.waitForExit(upTo: 60) == 0, "\(log())")
        #expect(log().contains("recording ended"))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix(#"{"type": "auth_required""#) || text.hasPrefix(#"{"type":"auth_required""#))
        #expect(!text.contains(DaemonTests.token), "the token is not in the recording")
        let original = try CommandRunner.run(["replay", DaemonTests.root + "/SampleEvents/bambu-pause-resume.jsonl"])
        let replayed = try CommandRunner.run(["replay", path])
        #expect(replayed.status == 0 && replayed.stderr.isEmpty, "\(replayed.stderr)")
        #expect(replayed.stdout == original.stdout)
        #expect(replayed.stdout.split(separator: "\n").count > 10)
    }

    @Test func anUnwritableFileExits73() throws {
        let result = try CommandRunner.run(
            ["record", "--out", "/nonexistent/dir/x.jsonl", "--duration", "1"],
            environment: ["HA_URL": "http://127.0.0.1:1", "HA_TOKEN": DaemonTests.token])
        #expect(result.status == 73)
    }
}

@Suite struct LocalisedEntityTests {
    /// German entity ids match nothing by suffix; the registry's translation
    /// keys make them printer fields, in the link's filter and the pipeline alike.
    @Test func germanEntityIDsWorkThroughTheRegistry() throws {
        let registry = NSTemporaryDirectory() + "printbridge-registry-\(UUID().uuidString.prefix(8)).json"
        defer { try? FileManager.default.removeItem(atPath: registry) }
        let prefix = "sensor.x1c_00m09a350100123"
        let entities: [[String: String]] = [
            ["ei": "\(prefix)_druckstatus", "di": "d1", "pl": "bambu_lab", "tk": "print_status"],
            ["ei": "\(prefix)_druckfortschritt", "di": "d1", "pl": "bambu_lab", "tk": "print_progress"],
            ["ei": "\(prefix)_aufgabenname", "di": "d1", "pl": "bambu_lab", "tk": "task_name"],
        ]
        try JSONSerialization.data(withJSONObject: entities).write(to: URL(fileURLWithPath: registry))
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: [
            "--rename", "_print_status=_druckstatus", "--rename", "_print_progress=_druckfortschritt",
            "--rename", "_task_name=_aufgabenname", "--registry", registry,
        ])
        let agent = try DaemonTests.Agent(port: ha.port, devices: try DaemonTests.devicesFile())
        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") })
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.stop() == 0)
        #expect(agent.alerts == DaemonTests.fullPrintAlerts)
        let started = agent.pushes.first { $0["event"] as? String == "started" }
        #expect(started != nil)
    }
}

@Suite struct SecureConnectionTests {
    /// wss:// with HA's own CA given in HA_CA_FILE works; without it the
    /// self-signed certificate is refused and nothing is received.
    @Test func wssVerifiesTheCertificate() throws {
        let directory = NSTemporaryDirectory() + "printbridge-ha-tls-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--tls", directory])
        let url = "https://127.0.0.1:\(ha.port)"

        let untrusted = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: ["HA_URL": url])
        // Refused at the TLS handshake: that is where a token would have followed.
        #expect(untrusted.wait(upTo: 30) { untrusted.log.contains("name its CA in HA_CA_FILE") })
        #expect(untrusted.stop() == 0)
        #expect(untrusted.alerts.isEmpty)
        #expect(ha.stats()["auth_attempts"] ?? 0 == 0, "no token is sent to an unverified server")

        let trusted = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(),
            environment: ["HA_URL": url, "HA_CA_FILE": directory + "/ha-ca.pem"])
        #expect(trusted.wait(upTo: 30) { trusted.alerts.contains("ab complete") })
        #expect(trusted.alerts == DaemonTests.fullPrintAlerts)
        #expect(trusted.stop() == 0)
    }
}

@Suite struct DaemonTokenRejectionTests {
    /// A phone APNs calls Unregistered gets its one refused push, then nothing.
    @Test func anUnregisteredTokenIsDroppedWhileRunning() throws {
        let apns = try MockAPNsServer()
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--interval", "0.01"])
        let dead = "feed410f" + String(repeating: "0", count: 56)
        let live = String(repeating: "ab", count: 32)
        let devices = NSTemporaryDirectory() + "printbridge-devices-\(UUID().uuidString.prefix(8)).json"
        try #"[{"apnsToken":"\#(dead)"},{"apnsToken":"\#(live)"}]"#.write(toFile: devices, atomically: true, encoding: .utf8)
        let agent = try DaemonTests.Agent(port: ha.port, devices: devices, environment: apns.environment, dryRun: false)
        #expect(agent.wait(upTo: 30) { agent.pushes.filter { $0["event"] as? String == "complete" }.count >= 1 })
        // Every event handled, then stopped (pushes in flight answered first):
        // whatever the agent would send the dead token, the mock has seen.
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.stop() == 0)
        let seen = try apns.stats()["tokens_seen"] as? [String: Int] ?? [:]
        #expect(seen[dead] == 1, "one refused push, then the token is dropped")
        #expect(seen[live] == 6, "5 alerts and the silent refresh")
        #expect(agent.log.contains("removed"))
        // The verdict is permanent: the store no longer has that phone.
        let listed = try CommandRunner.run(["devices", "list", "--format", "json"], environment: ["STATE_DIR": agent.stateDirectory])
        #expect(listed.stdout.split(separator: "\n").count == 1)
        #expect(listed.stdout.contains("ababab…abab") && !listed.stdout.contains("feed41"))
    }
}


/// A restart of the agent with the same state directory: nothing twice,
/// nothing missed.
@Suite(.serialized) struct RestartTests {
    /// The first agent is stopped once it has handled everything HA sent
    /// it; HA stays down (the mock refuses new connections) until the
    /// second starts, so the first cannot reconnect and take more meanwhile.
    static func firstAgentDone(_ first: DaemonTests.Agent, _ ha: DaemonTests.MockHA) -> Bool {
        // The disconnect is logged after every event of the connection it ends.
        (ha.stats()["drops"] ?? 0) == 1 && !first.logged("disconnected from Home Assistant").isEmpty
    }

    @Test func aRestartMidPrintRepeatsNothing() throws {
        let state = DaemonTests.temporaryDirectory("restart")
        let devices = try DaemonTests.devicesFile()
        let back = state + "-ha-back"
        let ha = try DaemonTests.MockHA(
            events: "bambu-full-print.jsonl", arguments: ["--drop-after", "120", "--interval", "0.01", "--hold-reconnects", back])
        let first = try DaemonTests.Agent(port: ha.port, devices: devices, stateDirectory: state)
        #expect(first.wait(upTo: 30) { Self.firstAgentDone(first, ha) })
        #expect(first.stop() == 0)
        let before = first.alerts
        #expect(before.first == "ab started")
        #expect(!before.contains("ab complete"))
        // The mock keeps the print going; a new agent process picks up where it was.
        #expect(FileManager.default.createFile(atPath: back, contents: nil), "HA is back")
        let connections = ha.stats()["connections"] ?? 0
        let second = try DaemonTests.Agent(port: ha.port, devices: devices, stateDirectory: state)
        #expect(second.wait(upTo: 30) { second.alerts.contains("ab complete") })
        #expect(second.wait(upTo: 30) { second.hasReceivedEverything(from: ha, connectionsBefore: connections) },
                "mock HA: \(ha.rawStats())")
        #expect(second.stop() == 0)
        #expect(before + second.alerts == DaemonTests.fullPrintAlerts, "\(before) + \(second.alerts)")
    }

    @Test func aPrintThatFinishedWhileTheAgentWasDownCompletesOnce() throws {
        let state = DaemonTests.temporaryDirectory("restart")
        let devices = try DaemonTests.devicesFile()
        let back = state + "-ha-back"
        let ha = try DaemonTests.MockHA(
            events: "bambu-full-print.jsonl",
            arguments: ["--drop-after", "120", "--skip-while-down", "--interval", "0.01", "--hold-reconnects", back])
        let first = try DaemonTests.Agent(port: ha.port, devices: devices, stateDirectory: state)
        #expect(first.wait(upTo: 30) { Self.firstAgentDone(first, ha) })
        #expect(first.stop() == 0)
        #expect(first.alerts.first == "ab started")
        #expect(!first.alerts.contains("ab complete"), "the print finished while no agent ran")
        #expect(FileManager.default.createFile(atPath: back, contents: nil), "HA is back")
        var connections = ha.stats()["connections"] ?? 0
        let second = try DaemonTests.Agent(port: ha.port, devices: devices, stateDirectory: state)
        #expect(second.wait(upTo: 30) { second.alerts.contains("ab complete") })
        #expect(second.wait(upTo: 30) { second.hasReceivedEverything(from: ha, connectionsBefore: connections) },
                "mock HA: \(ha.rawStats())")
        #expect(second.stop() == 0)
        #expect(second.alerts == ["ab complete"], "exactly one complete, no second start")
        #expect(second.pushes.filter { $0["event"] as? String == "end" }.count == 1, "and the Live Activity ends")
        // A third start finds nothing left to say, once it has handled HA's snapshot.
        connections = ha.stats()["connections"] ?? 0
        let third = try DaemonTests.Agent(port: ha.port, devices: devices, stateDirectory: state)
        #expect(third.wait(upTo: 30) { third.hasReceivedEverything(from: ha, connectionsBefore: connections) },
                "mock HA: \(ha.rawStats())")
        #expect(third.stop() == 0)
        #expect(third.pushes.isEmpty)
    }
}

/// `printbridge devices …` on the store, no daemon needed.
@Suite struct DevicesCommandTests {
    let token = String(repeating: "ab", count: 32)

    func run(_ arguments: [String], state: String) throws -> CommandRunner.Result {
        try CommandRunner.run(["devices"] + arguments, environment: ["STATE_DIR": state])
    }

    @Test func addListChangeAndRemove() throws {
        let state = DaemonTests.temporaryDirectory("devices")
        let added = try run(["add", "--token", token, "--printer", "x1c", "--printer", "p1s", "--name", "Workshop"], state: state)
        #expect(added.status == 0)
        let id = try #require(added.stdout.split(separator: " ").first.map(String.init))
        #expect(added.stdout.contains("registered"))
        #expect(try run(["add", "--token", token.uppercased()], state: state).stdout.contains("\(id) updated"))
        let list = try run(["list"], state: state)
        #expect(list.stdout.contains(id) && list.stdout.contains("ababab…abab") && list.stdout.contains("p1s, x1c"))
        #expect(!list.stdout.contains(token), "never a whole token")
        #expect(try run(["prefs", id, "--on-milestone", "false", "--on-start", "false"], state: state).status == 0)
        let json = try run(["list", "--format", "json"], state: state).stdout
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let settings = object?["settings"] as? [String: Bool]
        #expect(settings?["onMilestone"] == false && settings?["onStart"] == false && settings?["onComplete"] == true)
        // PrintBridge's own switches and the phone's language.
        #expect(try run(["prefs", id, "--on-printer-error", "false", "--on-bed-cooled", "false"], state: state).status == 0)
        #expect(try run(["add", "--token", token, "--language", "fr-CA"], state: state).status == 0)
        let again = try JSONSerialization.jsonObject(with: Data(try run(["list", "--format", "json"], state: state).stdout.utf8))
            as? [String: Any]
        let switches = again?["settings"] as? [String: Bool]
        #expect(switches?["onPrinterError"] == false && switches?["onBedCooled"] == false && switches?["onMilestone"] == false)
        #expect(again?["language"] as? String == "fr-CA")
        #expect(try run(["list"], state: state).stdout.contains("off: onStart, onMilestone, onPrinterError, onBedCooled"))
        // The silent refresh when a print ends: on until turned off.
        #expect(switches?["backgroundRefresh"] == true)
        #expect(try run(["prefs", id, "--background-refresh", "false"], state: state).status == 0)
        #expect(try run(["list"], state: state).stdout
            .contains("off: onStart, onMilestone, onPrinterError, onBedCooled, backgroundRefresh"))
        let last = try JSONSerialization.jsonObject(with: Data(try run(["list", "--format", "json"], state: state).stdout.utf8))
            as? [String: Any]
        #expect((last?["settings"] as? [String: Bool])?["backgroundRefresh"] == false)
        #expect(try run(["add", "--token", token, "--language", "C.UTF-8"], state: state).status == 64)
        #expect(try run(["remove", id], state: state).status == 0)
        #expect(try run(["list"], state: state).stdout.isEmpty)
    }

    @Test func mistakesHaveClearExits() throws {
        let state = DaemonTests.temporaryDirectory("devices")
        #expect(try run(["add", "--token", "nothex"], state: state).status == 64)
        let missing = try run(["remove", "no-such-id"], state: state)
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("no device no-such-id"))
        #expect(try run(["prefs", "no-such-id", "--on-start", "true"], state: state).status == 66)
        let unwritable = try run(["list"], state: "/nonexistent/state")
        #expect(unwritable.status == 78)
        #expect(unwritable.stderr.contains("not writable"))
    }

    @Test func aDeviceAddedOfflineGetsTheDaemonsPushes() throws {
        let state = DaemonTests.temporaryDirectory("devices")
        #expect(try run(["add", "--token", token, "--printer", "x1c_00m09a350100123"], state: state).status == 0)
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl")
        let empty = NSTemporaryDirectory() + "printbridge-no-devices-\(UUID().uuidString.prefix(8)).json"
        try "[]".write(toFile: empty, atomically: true, encoding: .utf8)
        let agent = try DaemonTests.Agent(port: ha.port, devices: empty, stateDirectory: state)
        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") })
        #expect(agent.alerts == DaemonTests.fullPrintAlerts)
        #expect(agent.stop() == 0)
    }
}

import FoundationNetworking

/// The app's API served by `run`: a phone registering while the agent runs
/// gets the pushes of the next print.
@Suite struct DaemonAPITests {
    @Test func aPhoneRegisteredThroughTheAPIGetsPushes() async throws {
        // The print begins once the agent has the phone (the test creates `go`).
        let go = DaemonTests.temporaryDirectory("api-phone") + "/go"
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--start-file", go])
        let empty = NSTemporaryDirectory() + "printbridge-no-devices-\(UUID().uuidString.prefix(8)).json"
        try "[]".write(toFile: empty, atomically: true, encoding: .utf8)
        // Device reloads log at debug.
        let agent = try DaemonTests.Agent(port: ha.port, devices: empty, environment: ["LOG_LEVEL": "debug"])
        #expect(agent.wait(upTo: 30) { agent.log.contains("API listening") })
        let listening = agent.records.first { ($0["message"] as? String)?.hasPrefix("API listening") == true }
        let apiPort = try #require(listening?["api.port"] as? Int)

        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(apiPort)/api/devices/register")!)
        request.httpMethod = "POST"
        request.setValue("Bearer \(DaemonTests.apiToken)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"apnsToken":"\#(String(repeating: "ab", count: 32))","haUrl":"http://ha:8123","printerPrefix":"x1c_00m09a350100123","printerName":"Workshop"}"#.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(agent.wait(upTo: 30) { !agent.logged("devices reloaded", ["devices.count": "1"]).isEmpty })
        #expect(FileManager.default.createFile(atPath: go, contents: nil), "the print begins")

        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") })
        #expect(agent.alerts == DaemonTests.fullPrintAlerts)
        #expect(agent.pushes.first { $0["event"] as? String == "started" } != nil)

        // The API's printer view follows the printer's last change.
        var printers = URLRequest(url: URL(string: "http://127.0.0.1:\(apiPort)/api/printers")!)
        printers.setValue("Bearer \(DaemonTests.apiToken)", forHTTPHeaderField: "Authorization")
        var listed: [[String: Any]]?
        #expect(try await waitUntil(upTo: 30, asking: {
            let (data, _) = try await URLSession.shared.data(for: printers)
            listed = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["printers"] as? [[String: Any]]
            return listed?.first?["status"] as? String == "complete"
        }))
        #expect(listed?.first?["prefix"] as? String == "x1c_00m09a350100123")
        #expect(listed?.first?["status"] as? String == "complete")
        #expect(listed?.first?["progress"] as? Int == 100)
        #expect(agent.stop() == 0)
    }

    /// Docker's HEALTHCHECK: `printbridge health` asks the local /healthz.
    @Test func theHealthCommandAsksTheRunningAgent() throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl")
        let agent = try DaemonTests.Agent(port: ha.port, devices: try DaemonTests.devicesFile())
        #expect(agent.wait(upTo: 30) { agent.log.contains("subscribed to state changes") })
        let listening = agent.records.first { ($0["message"] as? String)?.hasPrefix("API listening") == true }
        let port = try #require(listening?["api.port"] as? Int)
        // As the container runs it: API_LISTEN says 0.0.0.0, asked on 127.0.0.1.
        let ready = try CommandRunner.run(["health"], environment: ["API_LISTEN": "0.0.0.0:\(port)"])
        #expect(ready.status == 0)
        #expect(ready.stdout.contains(#""status":"ok""#) && ready.stdout.contains(#""ha":"connected""#))
        #expect(agent.stop() == 0)
        let gone = try CommandRunner.run(["health"], environment: ["API_LISTEN": "127.0.0.1:\(port)"])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("http://127.0.0.1:\(port)/healthz: ") && gone.stderr.contains("onnect"))
        // An agent that cannot reach HA is unready once the grace period is over.
        let lonely = try DaemonTests.Agent(port: 1, devices: try DaemonTests.devicesFile(), environment: ["HEALTH_HA_GRACE": "0.1"])
        #expect(lonely.wait(upTo: 30) { lonely.log.contains("API listening") })
        let lonelyPort = try #require(lonely.records.first { ($0["message"] as? String)?.hasPrefix("API listening") == true }?["api.port"] as? Int)
        var unready = try CommandRunner.run(["health"], environment: ["API_LISTEN": "127.0.0.1:\(lonelyPort)"])
        try waitUntil(upTo: 30) {
            unready = try CommandRunner.run(["health"], environment: ["API_LISTEN": "127.0.0.1:\(lonelyPort)"])
            return unready.status != 0
        }
        #expect(unready.status == 1 && unready.stdout.contains(#""status":"unhealthy""#))
        #expect(lonely.stop() == 0)
        let off = try CommandRunner.run(["health"], environment: ["API_LISTEN": "off"])
        #expect(off.status == 78 && off.stderr.contains("API_LISTEN is off"))
    }

    @Test func theAPIRefusesToStartWithoutAToken() throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl")
        let result = try CommandRunner.run(
            ["run", "--dry-run"],
            environment: ["HA_URL": "http://127.0.0.1:\(ha.port)", "HA_TOKEN": DaemonTests.token, "API_TOKEN": "",
                          "API_TOKEN_FILE": "", "API_LISTEN": "127.0.0.1:0", "STATE_DIR": DaemonTests.temporaryDirectory("state")])
        #expect(result.status == 78)
        #expect(result.stderr.contains("API_TOKEN or API_TOKEN_FILE not set"))
    }
}

/// The running agent notices devices changed by another process.
@Suite struct DeviceReloadTests {
    @Test func aPhoneAddedWithTheCLIWhileRunningGetsPushes() throws {
        // The print begins once the agent has the phone (the test creates `go`).
        let go = DaemonTests.temporaryDirectory("cli-phone") + "/go"
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--start-file", go])
        let empty = NSTemporaryDirectory() + "printbridge-no-devices-\(UUID().uuidString.prefix(8)).json"
        try "[]".write(toFile: empty, atomically: true, encoding: .utf8)
        // Routine reloads log at debug.
        let agent = try DaemonTests.Agent(port: ha.port, devices: empty, environment: ["LOG_LEVEL": "debug"])
        #expect(agent.wait(upTo: 30) { agent.log.contains("subscribed to state changes") })
        let added = try CommandRunner.run(
            ["devices", "add", "--token", String(repeating: "ab", count: 32), "--printer", "x1c_00m09a350100123"],
            environment: ["STATE_DIR": agent.stateDirectory])
        #expect(added.status == 0)
        #expect(agent.wait(upTo: 30) { !agent.logged("devices reloaded", ["devices.count": "1"]).isEmpty })
        #expect(FileManager.default.createFile(atPath: go, contents: nil), "the print begins")
        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") })
        #expect(agent.alerts == DaemonTests.fullPrintAlerts)
        #expect(agent.stop() == 0)
    }

    @Test func sighupReloadsWithoutStopping() throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--start-delay", "30"])
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: ["LOG_LEVEL": "debug"])
        #expect(agent.wait(upTo: 30) { agent.log.contains("subscribed to state changes") })
        agent.process.signal(SIGHUP)
        #expect(agent.wait(upTo: 30) { !agent.logged("devices reloaded", ["devices.count": "1"]).isEmpty })
        #expect(agent.process.isRunning)
        #expect(ha.stats()["connections"] == 1, "the HA connection stays up")
        #expect(agent.stop() == 0)
    }

    /// MILESTONES (an add-on option too) chooses the progress alerts `run` sends.
    @Test func milestonesSettingAppliesToRun() throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl")
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: ["MILESTONES": "50"])
        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") })
        #expect(agent.alerts == ["ab started", "ab milestone", "ab complete"])
        let milestone = try #require(agent.pushes.first { $0["event"] as? String == "milestone" })
        #expect("\(milestone)".contains("50% Complete"), "\(milestone)")
        #expect(agent.stop() == 0)
    }

    /// SIGHUP re-reads the settings file: notification settings apply, the
    /// rest is named for a restart, a broken file keeps the old settings.
    @Test func sighupRereadsTheSettingsFile() throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--start-delay", "30"])
        let path = NSTemporaryDirectory() + "printbridge-reload-\(UUID().uuidString.prefix(8)).yaml"
        try "milestones: 50\n".write(toFile: path, atomically: true, encoding: .utf8)
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: ["PRINTBRIDGE_CONFIG": path])
        #expect(agent.wait(upTo: 30) { agent.log.contains("subscribed to state changes") })
        try "milestones: 10,90\nlive_activity_interval: 12\nha_ping_interval: 5\n".write(toFile: path, atomically: true, encoding: .utf8)
        agent.process.signal(SIGHUP)
        #expect(agent.wait(upTo: 30) {
            !agent.logged("settings re-read", ["planner.milestones": "10,90", "planner.live_activity_interval": "12.0"]).isEmpty
        })
        let restartNeeded = agent.logged("a setting changed in the settings file; restart printbridge to apply it")
        #expect(restartNeeded.map { $0["config.setting"] as? String } == ["ha_ping_interval"], "milestones apply live")
        try "milestones: 10,90\n  nested: 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        agent.process.signal(SIGHUP)
        #expect(agent.wait(upTo: 30) { agent.log.contains("settings file not re-read, keeping the previous settings") })
        #expect(agent.log.contains("\(path):2:9: not valid YAML: mapping values are not allowed in this context"))
        // A file that parses but holds a value the planner cannot use keeps the previous settings too.
        try "milestones: 10,150\n".write(toFile: path, atomically: true, encoding: .utf8)
        agent.process.signal(SIGHUP)
        #expect(agent.wait(upTo: 30) {
            !agent.logged("settings file not re-read, keeping the previous settings: a value is invalid",
                          ["error": "milestone 150 is outside 1–99"]).isEmpty
        })
        #expect(agent.process.isRunning)
        #expect(ha.stats()["connections"] == 1, "the HA connection stays up")
        #expect(agent.stop() == 0)
    }
}

@Suite struct ShutdownTests {
    /// With nothing in flight, SIGTERM ends the agent at once, not after the grace period.
    @Test func anIdleAgentStopsPromptly() throws {
        let apns = try MockAPNsServer()
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--start-delay", "60"])
        let agent = try DaemonTests.Agent(port: ha.port, devices: try DaemonTests.devicesFile(), environment: apns.environment, dryRun: false)
        #expect(agent.wait(upTo: 30) { agent.log.contains("subscribed to state changes") })
        let started = Date()
        #expect(agent.stop() == 0)
        #expect(Date().timeIntervalSince(started) < 2.5, "stopped in \(Date().timeIntervalSince(started)) s")
    }
}

@Suite struct OversizedMessageTests {
    /// A message past HA_MAX_MESSAGE_MB closes the connection with a clear line; no crash.
    @Test func anOversizedMessageIsRefused() throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--big-snapshot", "3"])
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: ["HA_MAX_MESSAGE_MB": "1"])
        #expect(agent.wait(upTo: 30) { agent.log.contains("larger than 1 MiB (HA_MAX_MESSAGE_MB)") })
        #expect(agent.process.isRunning)
        #expect(agent.wait(upTo: 30) { !agent.logged("reconnecting to Home Assistant").isEmpty })
        #expect(agent.stop() == 0)
    }
}


/// The log: one JSON object per line with timestamp, level, message and
/// dot-separated metadata; no secret in any line.
@Suite struct StructuredLogTests {
    @Test func everyLineIsAJSONRecordAndNoSecretAppears() throws {
        let apns = try MockAPNsServer()
        // The recording's camera answers, as a working one does (else: a warning, rightly).
        let ha = try DaemonTests.MockHA(
            events: "bambu-full-print.jsonl", arguments: ["--camera", "camera.x1c_00m09a350100123_camera=jpeg"])
        let keyText = try String(contentsOfFile: apns.keyPath, encoding: .utf8)
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: apns.environment, dryRun: false)
        #expect(agent.wait(upTo: 30) { agent.pushes.contains { $0["event"] as? String == "end" } })
        #expect(agent.stop() == 0)
        let lines = String(decoding: FileManager.default.contents(atPath: agent.outPath) ?? Data(), as: UTF8.self)
            .split(separator: "\n")
        #expect(lines.count > 10)
        for line in lines {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(record["timestamp"] is String && record["level"] is String && record["message"] is String)
        }
        #expect(!agent.records.contains { $0["level"] as? String == "warning" || $0["level"] as? String == "error" },
                "a clean run and stop logs no warning")
        let delivered = try #require(agent.records.first { $0["message"] as? String == "push delivered" })
        for key in ["printer.prefix", "push.type", "push.event", "push.device", "apns.id"] {
            #expect(delivered[key] is String, "\(key)")
        }
        let everything = agent.log
        let keyBody = keyText.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
        for secret in [DaemonTests.token, DaemonTests.apiToken, keyBody, String(repeating: "ab", count: 32)] {
            #expect(!everything.contains(secret), "a secret or a whole token appears in the log")
        }
    }

    @Test func textFormatAndLevelAreChosenByTheEnvironment() throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--start-delay", "30"])
        let text = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: ["LOG_FORMAT": "text"])
        #expect(text.wait(upTo: 30) { text.log.contains("subscribed to state changes") })
        #expect(text.stop() == 0)
        #expect(text.records.isEmpty, "text lines are not JSON")
        #expect(text.log.contains(" info    subscribed to state changes"))
        // The quiet agent watches a print it cannot log at info: once the
        // print is in its store (`printbridge history`), it has handled the
        // subscription that "subscribed to state changes" would have told.
        let printing = try DaemonTests.MockHA(events: "bambu-full-print.jsonl")
        let quiet = try DaemonTests.Agent(
            port: printing.port, devices: try DaemonTests.devicesFile(), environment: ["LOG_LEVEL": "warning"])
        #expect(quiet.wait(upTo: 60) { printing.stats()["recording_done"] == 1 })  // its store is open long since
        #expect(try waitUntil(upTo: 30) {
            try CommandRunner.run(["history", "--format", "json"], environment: ["STATE_DIR": quiet.stateDirectory])
                .stdout.contains(#""outcome":"complete""#)
        })
        #expect(quiet.stop() == 0)
        #expect(!quiet.log.contains("subscribed to state changes"), "info is below warning")
        let bad = try CommandRunner.run(
            ["run", "--dry-run"], environment: ["LOG_FORMAT": "xml", "HA_URL": "http://127.0.0.1:1", "HA_TOKEN": "x"])
        #expect(bad.status == 78 && bad.stderr.contains("LOG_FORMAT must be json or text"))
    }
}

/// /metrics and /healthz on the running agent.
@Suite struct MetricsTests {
    func get(_ port: Int, _ path: String) async throws -> (Int, String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    func apiPort(_ agent: DaemonTests.Agent) throws -> Int { try #require(agent.apiPort) }

    func value(_ exposition: String, _ name: String, containing filter: String = "") -> Double {
        DaemonTests.value(exposition, name, containing: filter)
    }

    /// Also when HA coalesces events into arrays: each event counts.
    @Test(arguments: [[], ["--coalesce"]])
    func countersMatchWhatHappened(haArguments: [String]) async throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: haArguments)
        let agent = try DaemonTests.Agent(port: ha.port, devices: try DaemonTests.devicesFile())
        #expect(agent.wait(upTo: 30) { agent.pushes.contains { $0["event"] as? String == "end" } })
        // Every event received, and every push the log shows answered (a
        // push is counted when its answer is handled, after its log line).
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        let port = try apiPort(agent)
        var (status, exposition) = (0, "")
        #expect(try await waitUntil(upTo: 30, asking: {
            (status, exposition) = try await get(port, "/metrics")
            return value(exposition, "printbridge_pushes_total", containing: "outcome=\"dry_run\"") == Double(agent.pushes.count)
        }), "\(exposition)")
        #expect(status == 200)
        // Served as Prometheus asks for it, in the text format read strictly,
        // and promtool (Debian's prometheus package) has nothing to say.
        let (_, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "text/plain; version=0.0.4")
        let text = try PrometheusText(exposition)
        #expect(text.families.values.allSatisfy { $0.help != nil && $0.type != nil }, "\(exposition)")
        let check = try PrometheusText.promtool(exposition)
        #expect(check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty, "promtool: \(check)\n\(exposition)")
        #expect(value(exposition, "printbridge_pushes_total", containing: "outcome=\"dry_run\"") == Double(agent.pushes.count))
        #expect(value(exposition, "printbridge_pushes_total", containing: "event=\"milestone\"") == 3)
        #expect(value(exposition, "printbridge_ha_connected") == 1)
        #expect(value(exposition, "printbridge_ha_events_total") == Double(DaemonTests.MockHA.connections(ha.rawStats()).map { $0.events }.reduce(0, +)))
        #expect(value(exposition, "printbridge_ha_events_matched_total") > 100)
        #expect(value(exposition, "printbridge_printers") == 1)
        #expect(value(exposition, "printbridge_devices") == 1)
        #expect(value(exposition, "printbridge_last_event_age_seconds") >= 0)
        let (healthStatus, health) = try await get(port, "/healthz")
        #expect(healthStatus == 200 && health.contains(#""ha":"connected""#) && health.contains(#""apns":"dry-run""#))
        #expect(agent.stop() == 0)
    }

    @Test func healthTurnsRedWhenHomeAssistantStaysAway() async throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--reject-token"])
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: ["HEALTH_HA_GRACE": "1"])
        #expect(agent.wait(upTo: 30) { agent.log.contains("API listening") })
        let port = try apiPort(agent)
        // Unhealthy once HA has been away longer than the 1 s grace.
        var (status, body) = (0, "")
        #expect(try await waitUntil(upTo: 30, asking: {
            (status, body) = try await get(port, "/healthz")
            return status == 503
        }), "\(status) \(body)")
        #expect(status == 503)
        #expect(body.contains(#""status":"unhealthy""#) && body.contains(#""ha":"disconnected""#))
        #expect(agent.stop() == 0)
    }
}
