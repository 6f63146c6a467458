import Foundation
import FoundationNetworking
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ha-bambulab, all real but the printer: `printbridge run` against a real
/// Home Assistant 2024.3.3 running the real ha-bambulab v2.0.46
/// (Tests/ThirdParty/ha-bambulab), added through HA's config-flow REST API in
/// LAN mode, over simulated printers (an X1C and a P1S) speaking Bambu's LAN
/// MQTT protocol, each through its own mosquitto with TLS
/// (RealPrinters/bambu_printer.py, bambu_chain.py). Pushes go to the mock
/// APNs, which records each request whole (collapse id, priority, when it
/// arrived, the payload); the texts, collapse ids and content-states below are
/// read there. The default holds are on (START_SETTLE 5, CANCEL_WINDOW 10,
/// REASON_WINDOW 3). docs/BEHAVIOUR.md is what is expected.
///
/// Besides the prints: a replay of the failure's own recording gives the
/// same pushes at the same offsets from HA's `failed` as the live agent sent
/// (issue 37); HA restarts mid-print; the X1C drops off the network mid-print
/// (its broker goes: ha-bambulab shows `offline`) with OFFLINE_WINDOW set to
/// 5 s through the settings file and SIGHUP.
@Suite(.serialized) struct RealBambuLabTests {
    typealias Agent = DaemonTests.Agent

    static let x1c = "x1c_00m09a391200471"
    static let p1s = "p1s_01p09c470200789"
    static let x1cName = "X1C_00M09A391200471"
    static let p1sName = "P1S_01P09C470200789"
    static let phone = String(repeating: "ab", count: 32)
    /// A second phone with only "First Layer Done" on (issue 53; off by default).
    static let layerPhone = String(repeating: "cd", count: 32)
    /// The planner's holds, as the agent and the replay both get them.
    static let holds = [
        "START_SETTLE": "5", "CANCEL_WINDOW": "10", "REASON_WINDOW": "3", "FLICKER_WINDOW": "60",
        "LIVE_ACTIVITY_INTERVAL": "2",
    ]

    static var mosquitto: String? {
        ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// One request the mock APNs received.
    struct Push {
        let token: String, pushType: String, collapseID: String, priority: Int
        let receivedAt: Date
        let payload: [String: Any]
        /// The printer: an alert's printerState.prefix, else the printer the activity token was registered for.
        let printer: String

        init(_ record: [String: Any], activities: [String: String]) {
            token = record["token"] as? String ?? ""
            pushType = record["push_type"] as? String ?? ""
            collapseID = record["collapse_id"] as? String ?? ""
            priority = Int(record["priority"] as? String ?? "") ?? (record["priority"] as? Int ?? -1)
            receivedAt = Date(timeIntervalSince1970: record["received_at"] as? Double ?? 0)
            payload = record["payload"] as? [String: Any] ?? [:]
            let prefix = (payload["printerState"] as? [String: Any])?["prefix"] as? String
            printer = prefix ?? activities[token] ?? ""
        }

        var aps: [String: Any] { payload["aps"] as? [String: Any] ?? [:] }
        var title: String? { (aps["alert"] as? [String: Any])?["title"] as? String }
        var body: String? { (aps["alert"] as? [String: Any])?["body"] as? String }
        var state: [String: Any] { payload["printerState"] as? [String: Any] ?? [:] }
        var content: [String: Any] { aps["content-state"] as? [String: Any] ?? [:] }
        /// printerState.type for an alert, aps.event for a Live Activity push.
        var event: String { pushType == "alert" ? state["type"] as? String ?? "" : aps["event"] as? String ?? "" }
        var isAlert: Bool { pushType == "alert" }
    }

    static func time(_ text: Any?) -> Date? {
        guard let text = text as? String else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }

    /// The messages of a `printbridge record` file (HA's coalesced arrays opened).
    static func messages(_ path: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").flatMap { line -> [[String: Any]] in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8))
            return (object as? [[String: Any]]) ?? [(object as? [String: Any])].compactMap { $0 }
        }
    }

    /// The chain (bambu_chain.py): its commands go to stdin, their effect is read from the stats file.
    final class Chain: RealChain {
        init(python: String) throws { try super.init(script: "bambu_chain.py", python: python) }

        var played: [[String: Any]] { stats["played"] as? [[String: Any]] ?? [] }

        /// HA's config directory (hass.out is HA's output).
        var haDirectory: String { stats["ha_dir"] as? String ?? "" }

        var haLog: String {
            (try? String(contentsOfFile: haDirectory + "/hass.out", encoding: .utf8)) ?? ""
        }

        /// Plays a scenario and waits until the printer has sent its last report.
        @discardableResult
        func play(_ scenario: String, on printer: String, upTo seconds: Double) -> [String: Any]? {
            let before = played.count
            let began = Date()
            process.send("play \(scenario) \(printer)")
            guard waitUntil(upTo: seconds, { self.played.count > before }) else { return nil }
            var entry = played[before]
            entry["wall_seconds"] = Date().timeIntervalSince(began)
            return entry
        }

        /// Restarts HA and waits until it shows the printers again.
        func restartHA(upTo seconds: Double) -> Bool {
            let before = (stats["restart_times"] as? [Any])?.count ?? 0
            process.send("restart-ha")
            return waitUntil(upTo: seconds) {
                (self.stats["restart_times"] as? [Any])?.count ?? 0 > before && self.stats["phase"] as? String == "restarted"
            }
        }

        /// HA's states now (the chain writes /api/states to a file).
        func states() -> [String: [String: Any]] {
            let file = NSTemporaryDirectory() + "printbridge-bambu-states-\(UUID().uuidString.prefix(8)).json"
            defer { try? FileManager.default.removeItem(atPath: file) }
            process.send("states \(file)")
            waitUntil(upTo: 20) { FileManager.default.fileExists(atPath: file) }
            let list = FileManager.default.contents(atPath: file).flatMap {
                try? JSONSerialization.jsonObject(with: $0) as? [[String: Any]]
            } ?? []
            return Dictionary(list.compactMap { state in (state["entity_id"] as? String).map { ($0, state) } }) { a, _ in a }
        }
    }

    /// `printbridge record` beside the agent.
    final class Recorder {
        let path = NSTemporaryDirectory() + "printbridge-bambu-capture-\(UUID().uuidString.prefix(8)).jsonl"
        let logPath: String
        let process: ChildProcess
        let handle: FileHandle

        init(port: Int, token: String) throws {
            logPath = path + ".log"
            let binary = try #require(CommandRunner.binary(repositoryRoot: DaemonTests.root))
            FileManager.default.createFile(atPath: logPath, contents: nil)
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            var environment = ProcessInfo.processInfo.environment
            environment["HA_URL"] = "http://127.0.0.1:\(port)"
            environment["HA_TOKEN"] = token
            process = try ChildProcess(
                binary, ["record", "--out", path], environment: environment,
                stdout: .descriptor(handle.fileDescriptor), stderr: .descriptor(handle.fileDescriptor))
        }

        deinit {
            if process.isRunning { process.terminate() }
            try? handle.close()
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: logPath)
        }

        var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

        /// Stops it (SIGTERM): the file is complete once it has exited.
        func stop() -> [[String: Any]] {
            process.terminate()
            _ = process.waitForExit(upTo: 30)
            return RealBambuLabTests.messages(path)
        }
    }


    /// The state changes of a capture (`CaptureEvents`: what `record` writes
    /// now, the printers' entities' changes, as `state_changed` events).
    static func changes(_ messages: [[String: Any]]) -> [[String: Any]] {
        CaptureEvents.events(messages).filter { $0["event_type"] as? String == "state_changed" }
    }

    /// When HA said `entity` became `state` (its new last_updated, the
    /// event's time_fired), first time in the capture.
    static func fired(_ messages: [[String: Any]], _ entity: String, _ state: String) -> Date? {
        changes(messages).first { event in
            let data = event["data"] as? [String: Any]
            return data?["entity_id"] as? String == entity && (data?["new_state"] as? [String: Any])?["state"] as? String == state
        }.flatMap { $0["fired"] as? Date }
    }

    @Test func printsPausesFailuresCancelsErrorsRestartsAndSilencesThroughTheRealIntegration() async throws {
        let python = RealHomeAssistantTests.python
        try #require(
            FileManager.default.isExecutableFile(atPath: python),
            "no Home Assistant test environment at \(python): run scripts/install-test-deps.sh")
        try #require(
            Self.mosquitto != nil,
            "no mosquitto (the simulated printers' broker): run Tests/DaemonTests/RealPrinters/install_bambulab.sh")
        let clock = Date()
        let chain = try Chain(python: python)
        let chainStart = Date().timeIntervalSince(clock)
        let apns = try MockAPNsServer(recording: true)

        // One phone with every alert on; Live Activities are registered per print below. A
        // second one hears only "First Layer Done".
        let devices = NSTemporaryDirectory() + "printbridge-bambu-devices-\(UUID().uuidString.prefix(8)).json"
        let onlyFirstLayer = #"{"onStart":false,"onComplete":false,"onFailed":false,"onPaused":false,"onMilestone":false,"#
            + #""onPrinterError":false,"onBedCooled":false,"backgroundRefresh":false,"onFirstLayer":true}"#
        try #"[{"apnsToken":"\#(Self.phone)"},{"apnsToken":"\#(Self.layerPhone)","settings":\#(onlyFirstLayer)}]"#
            .write(toFile: devices, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: devices) }
        // OFFLINE_WINDOW comes from a settings file, so that SIGHUP can shorten it for the last print.
        let settings = NSTemporaryDirectory() + "printbridge-bambu-settings-\(UUID().uuidString.prefix(8)).yaml"
        try "offline_window: 60\n".write(toFile: settings, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: settings) }
        let environment = Self.holds.merging([
            "HA_TOKEN": chain.token, "HA_PING_INTERVAL": "5", "HA_PONG_TIMEOUT": "5", "PRINTBRIDGE_CONFIG": settings,
            "LOG_LEVEL": "debug",  // "devices reloaded" after an activity token comes
        ]) { $1 }
        let agent = try Agent(
            port: chain.port, devices: devices, environment: environment.merging(apns.environment) { $1 }, dryRun: false)
        #expect(agent.wait(upTo: 30) { agent.log.contains("subscribed to state changes") }, "\(agent.log)")
        #expect(agent.wait(upTo: 30) { agent.records.contains { $0["api.port"] != nil } })
        let apiPort = try #require(agent.records.compactMap { $0["api.port"] as? Int }.first)

        // A recorder beside it all along: the real capture the details at the end are read from.
        let recorder = try Recorder(port: chain.port, token: chain.token)
        #expect(waitUntil(upTo: 30) { recorder.log.contains("subscribed to state changes") })

        var activities: [String: String] = [:]  // activity token -> printer
        /// A fresh Live Activity on the phone for a printer, as the app registers it.
        /// `deviceID`: the phone's, as the app sends it (PrintBridge's
        /// extension): then the activity is known to be that phone's.
        func startActivity(_ printer: String, deviceID: String? = nil) async throws -> String {
            let token = String(format: "%02x", 0xc0 + activities.count + 1) + String(repeating: "cd", count: 39)
            activities[token] = printer
            let owner = deviceID.map { #","deviceId":"\#($0)""# } ?? ""
            #expect(try await DaemonTests.post(apiPort, "/api/devices/activity-token",
                                        #"{"activityToken":"\#(token)","printerPrefix":"\#(printer)"\#(owner)}"#) == 200)
            #expect(agent.wait(upTo: 30) { agent.logged("devices reloaded").count >= activities.count }, "\(agent.log)")
            return token
        }
        func pushes() -> [Push] { apns.requests().map { Push($0, activities: activities) } }
        func alerts(_ printer: String) -> [Push] {
            pushes().filter { $0.printer == printer && $0.isAlert && $0.token == Self.phone }
        }
        func layerAlerts() -> [Push] { pushes().filter { $0.isAlert && $0.token == Self.layerPhone } }
        func requests(_ token: String) -> [Push] { pushes().filter { $0.token == token } }
        var timings: [String: Double] = ["chain_start": chainStart]

        // 1. A complete print with milestones, then the bed cools: Ready to Remove.
        var token = try await startActivity(Self.x1c)
        var began = Date()
        let full = chain.play("full-print", on: "x1c", upTo: 90)
        #expect(full != nil, "full-print not played: \(chain.stats)")
        #expect(agent.wait(upTo: 30) { alerts(Self.x1c).contains { $0.event == "bed_cooled" } }, "\(agent.log)")
        timings["full-print"] = Date().timeIntervalSince(began)
        let fullAlerts = alerts(Self.x1c)
        #expect(fullAlerts.map(\.event) == ["print_started", "progress_milestone", "progress_milestone", "progress_milestone",
                                            "print_complete", "bed_cooled"], "\(fullAlerts.map(\.event))")
        #expect(fullAlerts.allSatisfy { $0.token == Self.phone })
        #expect(fullAlerts.first?.title == "Print Started")
        #expect(fullAlerts.first?.body == "gear_housing started on \(Self.x1cName)", "the device name is the printer's name")
        #expect(fullAlerts.first?.collapseID == "\(Self.x1c).started")
        #expect(fullAlerts.filter { $0.event == "progress_milestone" }.compactMap { $0.state["progress"] as? Int } == [25, 50, 75])
        #expect(fullAlerts.first { $0.event == "print_complete" }?.title == "Print Complete! 🎉")
        let cooled = fullAlerts.first { $0.event == "bed_cooled" }
        #expect(cooled?.title == "Ready to Remove")
        #expect(cooled?.body == "gear_housing on \(Self.x1cName): the bed has cooled to 34\u{00A0}°C in 1 minute.", "\(cooled?.body ?? "-")")
        #expect(cooled?.collapseID == "\(Self.x1c).bed_cooled")
        var activity = requests(token)
        #expect(activity.first?.event == "update" && activity.last?.event == "end"
                && activity.filter { $0.event == "end" }.count == 1, "\(activity.map(\.event))")
        let fullEnd = activity.last
        #expect(fullEnd?.content["status"] as? String == "complete" && fullEnd?.content["progress"] as? Int == 100
                && fullEnd?.content["currentLayer"] as? Int == 250 && fullEnd?.priority == 10)
        #expect(activity.contains { $0.event == "update" && $0.priority == 5 }, "routine updates while printing")
        #expect(activity.first?.priority == 10, "the start's update goes at once")
        // First Layer Done: ha-bambulab's current_layer (pybambu's layer_num) passed 1 while printing,
        // before the 25 % milestone; once, to the phone that asked for it.
        let layerDone = layerAlerts()
        #expect(layerDone.map(\.event) == ["first_layer_done"], "\(layerDone.map(\.event))")
        #expect(layerDone.first?.title == "First Layer Done" && layerDone.first?.collapseID == "\(Self.x1c).first_layer")
        #expect(layerDone.first?.body?.contains("gear_housing") == true, "\(layerDone.first?.body ?? "-")")
        if let layerAt = layerDone.first?.receivedAt,
           let quarter = fullAlerts.first(where: { $0.event == "progress_milestone" })?.receivedAt {
            #expect(layerAt <= quarter, "the first layer is done before a quarter of the print")
        }
        #expect(layerDone.first?.state["printId"] as? String == fullAlerts.first?.state["printId"] as? String)

        // 2. A runout pause (stage paused_filament_runout and the AMS's HMS error in one report), a resume, the finish.
        token = try await startActivity(Self.x1c)
        began = Date()
        #expect(chain.play("pause-resume", on: "x1c", upTo: 90) != nil)
        #expect(agent.wait(upTo: 30) { alerts(Self.x1c).filter { $0.event == "bed_cooled" }.count == 2 })
        timings["pause-resume"] = Date().timeIntervalSince(began)
        let pauseAlerts = Array(alerts(Self.x1c).dropFirst(fullAlerts.count))
        var events = pauseAlerts.map(\.event)
        #expect(events == ["print_started", "progress_milestone", "print_paused", "print_resumed", "progress_milestone",
                           "progress_milestone", "print_complete", "bed_cooled"], "\(events)")
        let paused = pauseAlerts.first { $0.event == "print_paused" }
        #expect(paused?.title == "Print Paused")
        #expect(paused?.body == "filament_swap_test paused on \(Self.x1cName)\nFilament ran out (AMS A, slot 1)", "\(paused?.body ?? "-")")
        #expect(paused?.collapseID == "\(Self.x1c).paused")
        #expect(!events.contains("printer_error"), "the runout's HMS error is the pause's reason, not an alert of its own")
        // Issue 37: on resume, the phone that got "Print Paused" gets a quiet note in its place.
        let resumed = pauseAlerts.first { $0.event == "print_resumed" }
        #expect(resumed?.title == "Print Resumed")
        #expect(resumed?.body == "filament_swap_test resumed on \(Self.x1cName)")
        #expect(resumed?.collapseID == "\(Self.x1c).paused", "it replaces the paused alert")
        #expect(resumed?.aps["interruption-level"] as? String == "passive" && resumed?.aps["sound"] == nil)
        activity = requests(token)
        let pausedUpdate = activity.first { $0.content["status"] as? String == "paused" }
        #expect(pausedUpdate?.priority == 10, "the pause's Live Activity update goes with its alert")
        if let pausedAt = pausedUpdate?.receivedAt, let resumedUpdate = activity.first(where: {
            $0.content["status"] as? String == "running" && $0.receivedAt > pausedAt
        }) {
            #expect(resumedUpdate.priority == 10, "the resume's update goes at once")
        } else {
            Issue.record("no Live Activity update after the resume: \(activity.map(\.event))")
        }
        #expect(activity.last?.event == "end", "\(activity.map(\.event))")

        // 3. A failure: spaghetti detected (print_error 0300_8003) on the P1S, with its own recording
        //    for the replay-vs-live check below.
        // The phone's id (registering its token again answers it), so the
        // failure's activity is known to be this phone's (issue 52's rule).
        var register = URLRequest(url: URL(string: "http://127.0.0.1:\(apiPort)/api/devices/register")!)
        register.httpMethod = "POST"
        register.httpBody = Data(#"{"apnsToken":"\#(Self.phone)","haUrl":"http://127.0.0.1:\#(chain.port)"}"#.utf8)
        register.setValue("application/json", forHTTPHeaderField: "Content-Type")
        register.setValue("Bearer \(DaemonTests.apiToken)", forHTTPHeaderField: "Authorization")
        let (registered, _) = try await URLSession.shared.data(for: register)
        let phoneID = try #require(
            (try JSONSerialization.jsonObject(with: registered) as? [String: Any])?["deviceId"] as? String,
            "\(String(decoding: registered, as: UTF8.self))")
        token = try await startActivity(Self.p1s, deviceID: phoneID)
        let failRecorder = try Recorder(port: chain.port, token: chain.token)
        #expect(waitUntil(upTo: 30) { failRecorder.log.contains("subscribed to state changes") })
        let failStart = Date()
        began = Date()
        #expect(chain.play("failed-print", on: "p1s", upTo: 60) != nil)
        #expect(agent.wait(upTo: 30) {
            requests(token).contains { $0.event == "end" } && alerts(Self.p1s).contains { $0.event == "print_failed" }
        }, "\(agent.log)")
        timings["failed-print"] = Date().timeIntervalSince(began)
        let failCapture = failRecorder.stop()
        let failAlerts = alerts(Self.p1s)
        #expect(failAlerts.map(\.event) == ["print_started", "progress_milestone", "print_failed"], "\(failAlerts.map(\.event))")
        let failure = failAlerts.first { $0.event == "print_failed" }
        let spaghetti = "Spaghetti defects were detected by the AI Print Monitoring. Please check the quality of the printed model before continuing your print."
        #expect(failure?.title == "Print Failed ⚠️")
        #expect(failure?.body == "bracket failed on \(Self.p1sName)\n\(spaghetti)", "\(failure?.body ?? "-")")
        #expect(failure?.state["reason"] as? String == spaghetti)
        let failEnd = requests(token).last
        #expect(failEnd?.event == "end" && failEnd?.content["status"] as? String == "failed"
                && failEnd?.content["progress"] as? Int == 32 && failEnd?.content["currentLayer"] as? Int == 56)
        // Issue 52: the activity is lit by an update carrying the alert just
        // before its end; the phone's own "Print Failed" then goes quietly.
        let beforeEnd = requests(token).dropLast().last
        let litBy = beforeEnd?.aps["alert"] as? [String: Any]
        #expect(beforeEnd?.event == "update" && beforeEnd?.priority == 10
                && beforeEnd?.content["status"] as? String == "failed", "\(requests(token).map(\.event))")
        #expect(litBy?["title"] as? String == "Print Failed ⚠️" && litBy?["body"] as? String == failure?.body
                && litBy?["sound"] as? String == "default", "\(litBy ?? [:])")
        #expect(failure?.aps["interruption-level"] as? String == "passive" && failure?.aps["sound"] == nil,
                "told audibly once, by the activity: \(failure?.aps ?? [:])")
        // Issue 37: "Print Failed" within 1 s of HA's failed status (ha-bambulab's event_print_failed comes first).
        let failedAt = Self.fired(failCapture, "sensor.\(Self.p1s)_print_status", "failed")
        let announced = Self.changesAndEvents(failCapture).firstIndex { $0 == "event_print_failed" }
        let failedStatus = Self.changesAndEvents(failCapture).firstIndex { $0 == "sensor.\(Self.p1s)_print_status=failed" }
        #expect(announced != nil && failedStatus != nil && announced! < failedStatus!, "the real order: the bus event, then the status")
        if let failedAt, let sent = failure?.receivedAt {
            #expect(sent.timeIntervalSince(failedAt) < 1.0 && sent.timeIntervalSince(failedAt) >= 0.8,
                    "issue 37: Print Failed reached APNs \(sent.timeIntervalSince(failedAt)) s after HA's failed status")
        } else {
            Issue.record("no failed status in the capture or no Print Failed received")
        }

        // Replay of that recording (issue 37): the same pushes at the same offsets from HA's `failed`.
        try checkReplayMatchesLive(
            capture: failRecorder.path, failedAt: failedAt,
            live: pushes().filter { $0.receivedAt >= failStart && $0.printer == Self.p1s && $0.token != Self.layerPhone },
            activityToken: token)

        // 4. A cancel (FAILED with print_error 0x0300400C; event_print_canceled).
        token = try await startActivity(Self.x1c)
        began = Date()
        #expect(chain.play("cancel", on: "x1c", upTo: 60) != nil)
        #expect(agent.wait(upTo: 30) {
            requests(token).contains { $0.event == "end" }
                && alerts(Self.x1c).dropFirst(fullAlerts.count + pauseAlerts.count).contains { $0.event == "print_cancelled" }
        })
        timings["cancel"] = Date().timeIntervalSince(began)
        let cancelAlerts = Array(alerts(Self.x1c).dropFirst(fullAlerts.count + pauseAlerts.count))
        #expect(cancelAlerts.map(\.event) == ["print_started", "progress_milestone", "print_cancelled"], "\(cancelAlerts.map(\.event))")
        let cancelled = cancelAlerts.first { $0.event == "print_cancelled" }
        #expect(cancelled?.title == "Print Cancelled")
        #expect(cancelled?.body == "spool_holder was cancelled on \(Self.x1cName)", "never the cancel code's own text: \(cancelled?.body ?? "-")")
        #expect(requests(token).last?.content["status"] as? String == "cancelled")

        // 5. HMS errors on the idle P1S: the heatbed (fatal), an AMS runout joins, both clear, the first flickers back.
        began = Date()
        let hms = chain.play("hms-idle", on: "p1s", upTo: 60)
        #expect(hms != nil)
        // The heatbed, then the AMS joining; the flicker back is checked at the end, long after its window.
        #expect(agent.wait(upTo: 30) { alerts(Self.p1s).filter { $0.event == "printer_error" }.count >= 2 })
        timings["hms-idle"] = Date().timeIntervalSince(began)
        let errors = alerts(Self.p1s).filter { $0.event == "printer_error" }
        #expect(errors.first?.title == "Printer Error on \(Self.p1sName)")
        #expect(errors.first?.body == "The heatbed temperature is abnormal; the sensor may have an open circuit.")
        #expect(errors.first?.collapseID == "\(Self.p1s).error.0300_0100_0001_0007", "\(errors.first?.collapseID ?? "-")")
        #expect(errors.first?.aps["interruption-level"] as? String == "time-sensitive", "fatal")
        #expect(errors.last?.body?.contains("AMS B Slot2") == true, "ha-bambulab spells slots 'Slot2': \(errors.last?.body ?? "-")")
        #expect(errors.last?.aps["interruption-level"] as? String == "time-sensitive", "serious")

        // 6. HA restarts mid-print: the agent reconnects, no second "Print Started", the print goes on.
        token = try await startActivity(Self.x1c)
        began = Date()
        let before = alerts(Self.x1c).count
        #expect(chain.play("restart-print", on: "x1c", upTo: 60) != nil)
        #expect(agent.wait(upTo: 20) { alerts(Self.x1c).count > before }, "the start is told before the restart")
        let subscriptions = agent.logged("subscribed to state changes").count
        #expect(chain.restartHA(upTo: 120), "HA restarted: \(chain.stats)")
        #expect(agent.wait(upTo: 90) { agent.logged("subscribed to state changes").count > subscriptions }, "\(agent.log)")
        let restartSeconds = Date().timeIntervalSince(began)
        #expect(chain.play("restart-print-rest", on: "x1c", upTo: 60) != nil)
        #expect(agent.wait(upTo: 30) {
            requests(token).contains { $0.event == "end" } && alerts(Self.x1c).dropFirst(before).contains { $0.event == "print_complete" }
        })
        timings["ha-restart"] = Date().timeIntervalSince(began)
        let restartAlerts = Array(alerts(Self.x1c).dropFirst(before))
        #expect(restartAlerts.map(\.event) == ["print_started", "progress_milestone", "progress_milestone", "progress_milestone",
                                               "print_complete"], "one start, the print goes on: \(restartAlerts.map(\.event))")
        #expect(!agent.logged("reconnecting to Home Assistant").isEmpty)
        #expect(requests(token).last?.content["status"] as? String == "complete")
        print("RealBambuLabTests: HA restart, agent subscribed again after \((restartSeconds * 10).rounded() / 10) s")

        // 7. The X1C drops off the network mid-print (its broker goes; ha-bambulab: print_status `offline`)
        //    for 12 s, with OFFLINE_WINDOW 5 s (the settings file, SIGHUP).
        try "offline_window: 5\n".write(toFile: settings, atomically: true, encoding: .utf8)
        kill(agent.process.pid, SIGHUP)
        #expect(agent.wait(upTo: 30) {
            agent.logged("settings re-read").contains { ($0["config.changed"] as? String ?? "").contains("offline_window") }
        }, "\(agent.log)")
        token = try await startActivity(Self.x1c)
        began = Date()
        let beforeOffline = alerts(Self.x1c).count
        let offlinePlay = chain.play("offline-print", on: "x1c", upTo: 90)
        #expect(offlinePlay != nil)
        // The Live Activity's end and the complete alert are separate pushes: wait for both (on a busy
        // machine the end has been seen to arrive first and the alert a moment later).
        #expect(agent.wait(upTo: 30) {
            requests(token).contains { $0.event == "end" }
                && alerts(Self.x1c).dropFirst(beforeOffline).contains { $0.event == "print_complete" }
        })
        timings["offline"] = Date().timeIntervalSince(began)
        let offlineAlerts = Array(alerts(Self.x1c).dropFirst(beforeOffline))
        // Back, pybambu marks the printer online on its first message (info.set_online: one coordinator
        // update) and then reads the report (another): HA's loop writes the entities once, progress (50 %,
        // reached while away) before status in sensor order, or twice, status first, as the MQTT thread and
        // the loop race. Both orders are real (the milestone-jump capture has the first), so the 50 %
        // milestone and the quiet back-online note may come either way round.
        events = offlineAlerts.map(\.event)
        #expect(events.prefix(3) == ["print_started", "progress_milestone", "printer_offline"], "\(events)")
        #expect(events.dropFirst(3).prefix(2).sorted() == ["printer_back_online", "progress_milestone"], "\(events)")
        #expect(events.dropFirst(5) == ["progress_milestone", "print_complete"], "\(events)")
        print("RealBambuLabTests: offline print alerts \(events)")
        // The phone with only the first layer on heard nothing else, and each print's first layer once.
        let layers = layerAlerts()
        #expect(layers.allSatisfy { $0.event == "first_layer_done" }, "\(layers.map(\.event))")
        let layerPrints = layers.compactMap { $0.state["printId"] as? String }
        #expect(layerPrints.count == layers.count && Set(layerPrints).count == layerPrints.count, "\(layerPrints)")
        print("RealBambuLabTests: first layer alerts \(layers.count) for \(layers.map(\.printer))")
        let offline = offlineAlerts.first { $0.event == "printer_offline" }
        #expect(offline?.title == "Printer Offline" && offline?.collapseID == "\(Self.x1c).offline", "\(offline?.title ?? "-")")
        #expect(offline?.body == "\(Self.x1cName) stopped reporting during cable_comb", "\(offline?.body ?? "-")")
        let wentAt = (offlinePlay?["marks"] as? [String: Any])?["offline"] as? Double
        if let wentAt, let told = offline?.receivedAt.timeIntervalSince1970 {
            #expect(told - wentAt >= 5 && told - wentAt < 7, "told OFFLINE_WINDOW after the printer went: \(told - wentAt) s")
        }
        let back = offlineAlerts.first { $0.event == "printer_back_online" }
        #expect(back?.title == "Printer Back Online" && back?.collapseID == "\(Self.x1c).offline", "it replaces the offline alert")
        #expect(back?.aps["interruption-level"] as? String == "passive" && back?.aps["sound"] == nil)
        #expect(requests(token).last?.content["status"] as? String == "complete")

        // Nothing more for the P1S's HMS errors: the one that flickered back is the same error (two
        // scenarios have played since, far beyond REASON_WINDOW).
        #expect(alerts(Self.p1s).filter { $0.event == "printer_error" }.count == 2, "nothing for the flicker")

        // The integration's own connections that fail here, and the sensors working regardless.
        let haLog = chain.haLog
        #expect(haLog.contains("A Chamber Image thread outer exception occurred"), "the P1S's camera (port 6000) is refused")
        #expect(haLog.contains("ConnectionRefusedError"))
        #expect(haLog.contains("FFmpeg fails"), "HA's ffmpeg integration (a dependency) finds no ffmpeg binary")
        #expect(!haLog.lowercased().contains("ftp"), "v2.0.46 never opens FTP (pybambu Features.FTP is False)")
        #expect(!haLog.contains("An exception occurred processing a message"), "no report dropped (bambu_shim.py)")
        #expect(haLog.contains("bambu_shim: offline error-text lookup"))
        #expect(haLog.contains("On Disconnect: Printer disconnected"), "the X1C's broker going is a lost connection to pybambu")
        let states = chain.states()
        #expect(states["sensor.\(Self.p1s)_print_status"]?["state"] as? String == "failed")
        #expect(states["sensor.\(Self.x1c)_print_status"]?["state"] as? String == "finish")

        // What the real capture shows (docs/BEHAVIOUR.md relies on each; SampleEvents' captures hold them too).
        let messages = recorder.stop()
        let changes = Self.changes(messages).compactMap { $0["data"] as? [String: Any] }
        func newStates(_ entity: String) -> [[String: Any]] {
            changes.filter { $0["entity_id"] as? String == entity }.compactMap { $0["new_state"] as? [String: Any] }
        }
        // (HA's restart and the sensor platform's reload make them `unavailable` for a moment: no reading.)
        let bed = newStates("sensor.\(Self.x1c)_bed_temperature").compactMap { $0["state"] as? String }
            .filter { $0 != "unavailable" && $0 != "unknown" }
        #expect(!bed.isEmpty && bed.allSatisfy { Int($0) != nil }, "temperatures are integers: \(bed.filter { Int($0) == nil })")
        let errorTexts = newStates("binary_sensor.\(Self.x1c)_print_error").compactMap { ($0["attributes"] as? [String: Any])?["error"] as? String }
        #expect(errorTexts.contains("Printing was cancelled."), "\(errorTexts)")
        let hmsTexts = newStates("binary_sensor.\(Self.p1s)_hms_errors").compactMap { ($0["attributes"] as? [String: Any])?["2-Error"] as? String }
        #expect(hmsTexts.contains { $0.contains("Slot2") }, "\(hmsTexts)")
        let status = newStates("sensor.\(Self.x1c)_print_status").first
        let options = (status?["attributes"] as? [String: Any])?["options"] as? [String] ?? []
        #expect(options.filter { $0 == "offline" }.count == 2 && options.contains("unknown"), "\(options)")
        #expect((status?["attributes"] as? [String: Any])?["friendly_name"] as? String == "\(Self.x1cName) Print status")
        #expect(newStates("sensor.\(Self.x1c)_print_status").contains { $0["state"] as? String == "offline" },
                "a printer off the network is `offline` in ha-bambulab")
        let remaining = newStates("sensor.\(Self.x1c)_remaining_time").first?["attributes"] as? [String: Any]
        #expect(remaining?["unit_of_measurement"] as? String == "min")
        let registry = messages.compactMap { ($0["result"] as? [String: Any])?["entities"] as? [[String: Any]] }.first ?? []
        let statusEntry = registry.first { $0["ei"] as? String == "sensor.\(Self.x1c)_print_status" }
        #expect(statusEntry?["pl"] as? String == "bambu_lab" && statusEntry?["tk"] as? String == "print_status")
        #expect(statusEntry?["lb"] != nil && statusEntry?["en"] as? String == "Print status", "\(statusEntry ?? [:])")
        #expect(registry.contains { $0["ec"] != nil && ($0["ei"] as? String ?? "").hasPrefix("binary_sensor.\(Self.x1c)") })
        #expect(messages.filter { $0["type"] as? String == "auth_ok" }.count == 2, "record went on across HA's restart: a second session")

        #expect(agent.stop() == 0)
        #expect(!agent.log.contains("no pong"))
        chain.process.finish(within: 90)
        timings["total"] = Date().timeIntervalSince(clock)
        print("RealBambuLabTests timings (s): \(timings.mapValues { ($0 * 10).rounded() / 10 })")
    }

    /// Each state_changed as "entity=state" and each bambu_lab_event as its type, in the capture's order.
    static func changesAndEvents(_ messages: [[String: Any]]) -> [String] {
        CaptureEvents.events(messages).compactMap { event -> String? in
            guard let data = event["data"] as? [String: Any] else { return nil }
            if event["event_type"] as? String == "bambu_lab_event" { return data["type"] as? String }
            let state = (data["new_state"] as? [String: Any])?["state"] as? String ?? "-"
            return "\(data["entity_id"] as? String ?? "")=\(state)"
        }
    }

    /// Replays `capture` with the live phone (and the print's activity token) and the same holds, and compares
    /// with what the mock APNs received live: the same pushes in the same order, each at the same offset from
    /// HA's `failed` status (live: when the mock APNs received it; replay: the push's `at`).
    ///
    /// Each live offset is the replay's plus the path HA → WebSocket → agent → HTTP/2 → mock APNs (replay
    /// runs on HA's time_fired, the live agent on its own clock when an event reached it; the held verdicts,
    /// START_SETTLE and the failure's 0.8 s, run on that same clock and add nothing). That path is a few ms
    /// on an idle machine (see the printed differences) and was 62–83 ms with two CPU hogs beside the suite
    /// (issue 35's runs): so a live push may come up to 250 ms after its replayed time and never before it,
    /// which still catches a push moved by a whole hold (0.8 s, 2 s, 5 s) or told early.
    func checkReplayMatchesLive(capture: String, failedAt: Date?, live: [Push], activityToken: String) throws {
        let failedAt = try #require(failedAt, "no failed status in the failure's recording")
        let devices = NSTemporaryDirectory() + "printbridge-bambu-replay-devices-\(UUID().uuidString.prefix(8)).json"
        // No reminder: replay tells an unopened failure again at the recording's end at the latest;
        // the live run ends long before the phone's 15 minutes.
        try #"[{"apnsToken":"\#(Self.phone)","activityTokens":{"\#(Self.p1s)":"\#(activityToken)"},"settings":{"retellAfterMinutes":0}}]"#
            .write(toFile: devices, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: devices) }
        let result = try CommandRunner.run(
            ["replay", capture, "--devices", devices], environment: Self.holds.merging(["APNS_BUNDLE_ID": MockAPNsServer.bundleID]) { $1 })
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let replayed = result.stdout.split(separator: "\n").compactMap { line -> (key: String, offset: Double)? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let at = Self.time(object["at"]), let payload = object["payload"] as? [String: Any]
            else { return nil }
            let aps = payload["aps"] as? [String: Any] ?? [:]
            let key = object["push_type"] as? String == "alert"
                ? "alert \((payload["printerState"] as? [String: Any])?["type"] as? String ?? "")"
                : "activity \(aps["event"] as? String ?? "") \((aps["content-state"] as? [String: Any])?["status"] as? String ?? "") p\(object["priority"] as? Int ?? -1)"
            return (key, at.timeIntervalSince(failedAt))
        }
        let lived = live.map { push -> (key: String, offset: Double) in
            let key = push.isAlert ? "alert \(push.event)" : "activity \(push.event) \(push.content["status"] as? String ?? "") p\(push.priority)"
            return (key, push.receivedAt.timeIntervalSince(failedAt))
        }
        // Per token (the phone's alerts, the Live Activity's updates): the order each sees. Across
        // tokens a failure's alert may follow the activity's end by the camera's answer (the alert
        // waits up to SNAPSHOT_TIMEOUT for its picture; the real integration's camera answers at once).
        func byToken(_ pushes: [(key: String, offset: Double)]) -> [(key: String, offset: Double)] {
            pushes.filter { $0.key.hasPrefix("alert") } + pushes.filter { !$0.key.hasPrefix("alert") }
        }
        let (replayedByToken, livedByToken) = (byToken(replayed), byToken(lived))
        #expect(replayedByToken.map(\.key) == livedByToken.map(\.key), "replay: \(replayed.map(\.key))\nlive: \(lived.map(\.key))")
        let differences = zip(replayedByToken, livedByToken).map { ($0.key, (($1.offset - $0.offset) * 1000).rounded()) }
        print("RealBambuLabTests replay vs live (key, live − replay offset from HA's failed, ms): \(differences)")
        #expect(replayed.contains { $0.key == "alert print_failed" && abs($0.offset - 0.8) < 0.001 },
                "replay: Print Failed 0.8 s after HA's failed")
        for (replay, live) in zip(replayedByToken, livedByToken) {
            #expect(live.offset - replay.offset > -0.005 && live.offset - replay.offset < 0.25,
                    "\(replay.key): live \(live.offset) s, replay \(replay.offset) s from HA's failed")
        }
    }
}
