import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `printbridge run`, watching when a print begins, killed with SIGKILL at
/// random moments across the print while Home Assistant goes on (the mock
/// HA plays the print on the wall clock whoever is connected), restarted with the same state directory;
/// the mock APNs records every request. A notification sent again after a
/// crash carries the same apns-id (and collapse id): the phone shows one.
/// In every run: one start, one complete, milestones increasing and never
/// repeated, one Live Activity end.
@Suite(.serialized) struct CrashRecoveryTests {
    static let runs = 30
    /// The print, hours long in the recording, played over this many seconds.
    static let printSeconds = 2.5

    @Test func sigkillAtRandomMomentsNeitherRepeatsNorLosesANotification() throws {
        let apns = try MockAPNsServer(recording: true)
        var random = SplitMix(seed: UInt64(Date().timeIntervalSince1970 * 1000))
        let seed = random.state
        var failures: [String] = []
        for run in 0..<Self.runs {
            let device = String(format: "%02x", run + 16) + String(repeating: "ab", count: 31)
            let activity = String(format: "%02x", run + 16) + String(repeating: "cd", count: 39)
            let devices = NSTemporaryDirectory() + "printbridge-crash-\(UUID().uuidString.prefix(8)).json"
            try #"[{"apnsToken":"\#(device)","activityTokens":{"x1c_00m09a350100123":"\#(activity)"}}]"#
                .write(toFile: devices, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: devices) }
            let state = DaemonTests.temporaryDirectory("crash")
            let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--timeline", "\(Self.printSeconds)"])
            // One or two kills, anywhere from before the connection to after the finish.
            let kills = (0..<(1 + Int(random.next() % 2))).map { _ in random.unit() * (Self.printSeconds + 0.3) }.sorted()
            var elapsed = 0.0
            for (index, kill) in kills.enumerated() {
                let agent = try DaemonTests.Agent(
                    port: ha.port, devices: devices, environment: apns.environment, dryRun: false, stateDirectory: state)
                if index == 0 {
                    // The agent watches; the print begins (the mock starts its timeline on this subscription).
                    #expect(agent.wait(upTo: 30) { agent.log.contains("subscribed to state changes") })
                }
                Thread.sleep(forTimeInterval: max(0, kill - elapsed))
                agent.process.signal(SIGKILL)
                _ = agent.process.waitForExit()
                let down = random.unit() * 0.6  // HA goes on meanwhile
                Thread.sleep(forTimeInterval: down)
                elapsed = kill + down
            }
            let connections = ha.stats()["connections"] ?? 0
            let last = try DaemonTests.Agent(
                port: ha.port, devices: devices, environment: apns.environment, dryRun: false, stateDirectory: state)
            func mine() -> [[String: Any]] {
                apns.requests().filter { ($0["token"] as? String) == device || ($0["token"] as? String) == activity }
            }
            // The print over and nothing left that could go out again: every
            // event HA sent this agent handled (its snapshot too), the outbox
            // empty. Not met, the checks below say what went wrong.
            _ = last.wait(upTo: 30) {
                ha.stats()["timeline_done"] == 1
                    && mine().contains { $0["event"] as? String == "print_complete" }
                    && mine().contains { $0["activity_event"] as? String == "end" }
                    && last.hasReceivedEverything(from: ha, connectionsBefore: connections)
                    && last.metric("printbridge_outbox_pushes") == 0
            }
            #expect(last.stop() == 0)
            let requests = mine()
            func distinct(_ matching: ([String: Any]) -> Bool) -> [[String: Any]] {
                var seen: Set<String> = []
                return requests.filter(matching).filter { seen.insert($0["apns_id"] as? String ?? UUID().uuidString).inserted }
            }
            let started = distinct { $0["event"] as? String == "print_started" }
            let complete = distinct { $0["event"] as? String == "print_complete" }
            let ends = distinct { $0["activity_event"] as? String == "end" }
            let milestones = distinct { $0["event"] as? String == "progress_milestone" }.compactMap { $0["progress"] as? Int }
            let problem =
                started.count != 1 ? "started \(started.count)" : complete.count != 1 ? "complete \(complete.count)"
                : ends.count != 1 ? "end \(ends.count)" : milestones != milestones.sorted() || Set(milestones).count != milestones.count
                    ? "milestones \(milestones)" : nil
            if let problem {
                failures.append("run \(run) (kills at \(kills.map { String(format: "%.2f", $0) }) s): \(problem); requests \(requests)")
            }
        }
        #expect(failures.isEmpty, "seed \(seed):\n\(failures.joined(separator: "\n"))")
    }
}
