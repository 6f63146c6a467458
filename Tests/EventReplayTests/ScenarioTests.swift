import EventReplay
import FoundationEssentials
import PrintBridgeCore
import PrinterActivityContent
import Testing

/// What each scenario must produce, stated as behaviour rather than bytes.
/// The ha-bambulab files are captures of the real chain (real HA 2024.3.3, the
/// real ha-bambulab v2.0.46, simulated printers; SampleEvents/README.md): short
/// prints in wall time, each report of the printer one coalesced frame.
@Suite struct ScenarioTests {
    func alerts(_ name: String) -> [String] {
        replay([Repo.sampleEvents + "/" + name]).pushes.filter { $0.kind == .alert }.map {
            "\($0.printerPrefix.prefix(3)) \($0.event.rawValue)"
        }
    }

    @Test func fullPrint() {
        #expect(alerts("bambu-full-print.jsonl") == ["x1c started", "x1c milestone", "x1c milestone", "x1c milestone", "x1c complete"])
        let pushes = replay([Repo.sampleEvents + "/bambu-full-print.jsonl"]).pushes
        #expect(pushes.filter { $0.event == .end }.count == 1)
        let updates = pushes.filter { $0.event == .update && $0.priority == 5 }
        #expect(updates.count >= 6, "a four-minute print: a routine update every 30 s")
        #expect(pushes.filter { $0.event == .update && $0.priority == 10 }.count == 1, "the start, at once")
        for (a, b) in zip(updates, updates.dropFirst()) { #expect(b.createdAt - a.createdAt >= 30) }
    }

    @Test func failedPrint() {
        // The failure again 15 minutes on, unopened and the printer not printing again (issue 53).
        #expect(alerts("bambu-failed-print.jsonl") == ["p1s started", "p1s milestone", "p1s failed", "p1s failed"])
    }

    /// The failure with phones on an iOS 17 token, on the printer's channel
    /// and without an activity (`bambu-failed-print.devices.json`): each
    /// activity gets an update carrying the "Print Failed" alert just before
    /// its end; the phones it lit get their alert quietly, the phone with no
    /// activity audibly (docs/BEHAVIOUR.md, "An alert inside the Live Activity").
    @Test func failedPrintLightsTheActivityBeforeItsEnd() throws {
        let name = "bambu-failed-print"
        let bytes = Array(try #require(Repo.read(Repo.sampleEvents + "/\(name).devices.json")).utf8)
        let devices = try DevicesFile.parse(bytes, source: name)
        let pushes = replay([Repo.sampleEvents + "/\(name).jsonl"], devices: devices).pushes
        let activityTokens = Set(pushes.filter { $0.kind == .liveActivity }.map(\.token))
        #expect(activityTokens.count == 2, "the iOS 17 phone's token and the printer's channel")
        for token in activityTokens {
            let tail = pushes.filter { $0.token == token }.suffix(2)
            #expect(tail.map(\.event) == [.update, .end], "\(token)")
            let update = try #require(tail.first), end = try #require(tail.last)
            #expect(update.priority == 10 && update.createdAt == end.createdAt)
            #expect(update.json["aps"]?["alert"]?["title"] == .string("Print Failed ⚠️"))
            #expect(update.json["aps"]?["alert"]?["sound"] == .string("default"))
            #expect(update.json["aps"]?["content-state"]?["status"] == .string("failed"))
            #expect(end.json["aps"]?["alert"] == nil)
        }
        let failed = pushes.filter { $0.kind == .alert && $0.event == .failed }
        let first = failed.filter { $0.createdAt == failed.first?.createdAt }
        #expect(first.count == 4, "every phone keeps its alert")
        let retold = failed.dropFirst(first.count)
        #expect(retold.count == 4 && retold.allSatisfy {
            $0.json["aps"]?["interruption-level"] == .string("time-sensitive") && $0.json["aps"]?["sound"] == .string("default")
        }, "nobody opened it: told again 15 minutes on, heard this time")
        for alert in first {
            let lit = alert.deviceID != devices[3].id
            #expect(alert.json["aps"]?["interruption-level"] == (lit ? .string("passive") : nil), "\(alert.deviceID)")
            #expect(alert.json["aps"]?["sound"] == (lit ? nil : .string("default")), "\(alert.deviceID)")
        }
    }

    @Test func pauseAndResume() {
        #expect(alerts("bambu-pause-resume.jsonl") == [
            "x1c started", "x1c milestone", "x1c paused", "x1c resumed", "x1c milestone", "x1c milestone",
            "x1c complete", "x1c bed_cooled",
        ])
        let statusUpdates = replay([Repo.sampleEvents + "/bambu-pause-resume.jsonl"]).pushes.filter {
            $0.event == .update && $0.priority == 10
        }
        #expect(statusUpdates.compactMap { $0.json["aps"]?["content-state"]?["status"]?.stringValue } == ["running", "paused", "running"])
    }

    @Test func haRestartMidPrintDoesNotRestart() {
        #expect(alerts("ha-restart-mid-print.jsonl") == ["x1c started", "x1c milestone", "x1c milestone", "x1c milestone", "x1c complete"])
    }

    @Test func twoPrintersAmidNoise() {
        #expect(alerts("two-printers-with-noise.jsonl") == [
            "x1c started", "a1m started", "x1c milestone", "a1m milestone", "x1c milestone", "a1m cancelled",
            "x1c milestone", "x1c complete",
        ])
    }

    /// A printer reports a cancel's code and its FAILED status in one report
    /// (the P1S here: pybambu fires `event_print_canceled`, then ha-bambulab
    /// writes the print error and the status) or in two (the A1 mini: the code,
    /// then half a second later the status, with `event_print_failed` too).
    @Test func cancelsInEitherOrder() {
        #expect(alerts("bambu-cancels.jsonl") == [
            "p1s started", "p1s milestone", "p1s cancelled", "a1m started", "a1m milestone", "a1m cancelled",
        ])
        let ends = replay([Repo.sampleEvents + "/bambu-cancels.jsonl"]).pushes.filter { $0.event == .end }
        #expect(ends.compactMap { $0.json["aps"]?["content-state"]?["status"]?.stringValue } == ["cancelled", "cancelled"])
    }

    @Test func aFlickerIsOnePrintAndAnAbandonedPrintEndsQuietly() {
        #expect(alerts("bambu-abandoned-and-flicker.jsonl") == [
            "p1s started", "x1c started", "x1c milestone", "x1c milestone", "x1c milestone", "x1c complete",
        ])
        let pushes = replay([Repo.sampleEvents + "/bambu-abandoned-and-flicker.jsonl"]).pushes
        let p1sEnd = pushes.filter { $0.printerPrefix.hasPrefix("p1s") && $0.event == .end }
        #expect(p1sEnd.count == 1)
        #expect(p1sEnd.first?.json["aps"]?["content-state"]?["status"] == .string("idle"))
        #expect(p1sEnd.first?.json["aps"]?["content-state"]?["progress"] == .number(24), "the last real values")
        #expect(pushes.filter { $0.printerPrefix.hasPrefix("x1c") && $0.event == .end }.count == 1)
    }

    @Test func whatHappensDuringPreparation() {
        #expect(alerts("bambu-preparation.jsonl") == [
            "x1c paused", "p1s cancelled", "x1c resumed", "x1c milestone", "x1c milestone", "x1c milestone",
            "x1c complete",
        ])
    }

    @Test func theStartNamesTheNewPrint() {
        let pushes = replay([Repo.sampleEvents + "/bambu-late-task-name.jsonl"]).pushes
        let started = pushes.first { $0.event == .started }
        #expect(started?.json["printerState"]?["filename"] == .string("new_part"))
        let first = pushes.first { $0.event == .update }
        // START_SETTLE (5 s) after `running` the new print already read 10 %: its own latest value.
        #expect(first?.json["aps"]?["content-state"]?["progress"] == .number(10), "not the previous print's 100 %")
    }

    @Test func aDualNozzlePrinterIsOnePrinter() {
        let result = replay([Repo.sampleEvents + "/bambu-h2d-dual-nozzle.jsonl"])
        #expect(Set(result.pushes.map(\.printerPrefix)) == ["h2d_0948ad520400123"])
        #expect(alerts("bambu-h2d-dual-nozzle.jsonl") == ["h2d started", "h2d milestone", "h2d milestone", "h2d milestone", "h2d complete"])
    }

    @Test func aRecordingThatStartsMidPrintStillShowsTheLiveActivity() {
        let pushes = replay([Repo.sampleEvents + "/milestone-jump.jsonl"]).pushes
        #expect(pushes.contains { $0.event == .update && $0.priority == 5 })
        #expect(pushes.last { $0.kind != .background }?.event == .end)
        #expect(pushes.last?.event == .history, "the silent refresh after the print's end")
    }

    @Test func milestoneJumpSendsOnlyTheHighest() {
        let result = replay([Repo.sampleEvents + "/milestone-jump.jsonl"])
        let milestones = result.pushes.filter { $0.event == .milestone }
        #expect(milestones.compactMap { $0.json["printerState"]?["progress"]?.intValue } == [75])
        // 75 s off the network mid-print: told once, and the return quietly. Back, ha-bambulab
        // wrote the printer's full report in one pass, its progress (80 %) before its status (sensor
        // order), so the 75 % milestone comes before the back-online note (in two passes, which
        // RealBambuLabTests also sees, the status comes first).
        #expect(result.pushes.filter { $0.kind == .alert }.map(\.event) == [
            .started, .offline, .milestone, .backOnline, .complete,
        ])
    }

    /// "Printer Offline" OFFLINE_WINDOW (60 s) after ha-bambulab's `offline`, in replay as live.
    @Test func theOfflineAlertComesAfterTheOfflineWindow() throws {
        let source = try #require(Repo.read(Repo.sampleEvents + "/milestone-jump.jsonl"))
        let times = source.split(separator: "\n").compactMap { line -> EpochTime? in
            guard line.contains(#""state":"offline""#), let json = try? JSONParser.parse(String(line)) else { return nil }
            for message in json.arrayValue ?? [json] {
                let data = message["event"]?["data"]
                if data?["entity_id"]?.stringValue?.hasSuffix("_print_status") == true,
                    data?["new_state"]?["state"]?.stringValue == "offline"
                {
                    return message["event"]?["time_fired"]?.stringValue.flatMap(ISO8601.parse)
                }
            }
            return nil
        }
        let went = try #require(times.first)
        let offline = try #require(replay([Repo.sampleEvents + "/milestone-jump.jsonl"]).pushes.first { $0.event == .offline })
        // Replay fires one deadline at a time: the routine Live Activity update due 13 s after
        // `offline` does not take the silence's deadline with it (commit 9916daa).
        #expect(abs(offline.createdAt - went - 60) < 0.001, "Printer Offline \(offline.createdAt - went) s after `offline`")
    }

    @Test func everyContentStateDecodesLikeIOSAndEveryPayloadFits() throws {
        let paths = Repo.sampleFiles().map { Repo.sampleEvents + "/" + $0 }
        let pushes = replay(paths).pushes
        #expect(pushes.count > 100)
        for push in pushes {
            #expect(push.payload.count <= 4096)
            let collapse = try #require(push.collapseID)
            #expect(collapse.utf8.count <= 64)
            guard push.kind == .liveActivity else { continue }
            let json = try JSONParser.parse(push.payload)
            let contentState = try #require(json["aps"]?["content-state"])
            let state = try JSONDecoder().decode(
                PrinterActivityAttributes.ContentState.self, from: Data(JSONText.encode(contentState).utf8))
            #expect((0...100).contains(state.progress))
            #expect(["running", "paused", "complete", "failed", "cancelled", "idle"].contains(state.status))
            #expect(json["aps"]?["timestamp"]?.intValue != nil && json["aps"]?["stale-date"]?.intValue != nil)
            #expect((json["aps"]?["dismissal-date"] != nil) == (push.event == .end))
            #expect(push.topic.hasSuffix(".push-type.liveactivity"))
        }
    }
}

extension Push {
    var json: JSONValue { (try? JSONParser.parse(payload)) ?? .null }
}

@Suite struct EventsOnlyRecordingTests {
    /// A recording without its get_states snapshot: the first events' old_state
    /// is the baseline, so the print still starts, progresses and completes.
    @Test func aRecordingWithoutASnapshotStillAlerts() throws {
        let source = try #require(Repo.read(Repo.sampleEvents + "/bambu-full-print.jsonl"))
        let events = source.split(separator: "\n").filter { $0.contains(#""type":"event""#) }
        let path = Repo.temporaryPath("events-only.jsonl")
        Repo.write(events.joined(separator: "\n") + "\n", to: path)
        let result = replay([path])
        #expect(result.pushes.filter { $0.kind == .alert }.map(\.event) == [.started, .milestone, .milestone, .milestone, .complete])
        #expect(result.pushes.last?.event == .history)
        let end = try #require(result.pushes.last { $0.kind == .liveActivity })
        #expect(end.event == .end)
        #expect(end.json["aps"]?["content-state"]?["totalLayers"] == .number(250))
    }
}

@Suite struct BareEventRecordingTests {
    /// Lines that are HA event objects without the WebSocket envelope replay too.
    @Test func bareEventObjectsAreEvents() throws {
        let source = try #require(Repo.read(Repo.sampleEvents + "/bambu-full-print.jsonl"))
        var lines: [String] = []
        for line in source.split(separator: "\n") {
            let json = try JSONParser.parse(String(line))
            if json["type"] == "event", let event = json["event"] { lines.append(JSONText.encode(event)) } else { lines.append(String(line)) }
        }
        let path = Repo.temporaryPath("bare-events.jsonl")
        Repo.write(lines.joined(separator: "\n") + "\n", to: path)
        let result = replay([path])
        #expect(result.diagnostics.isEmpty)
        #expect(result.lines.count == replay([Repo.sampleEvents + "/bambu-full-print.jsonl"]).lines.count)
        #expect(result.pushes.filter { $0.kind == .alert }.map(\.event) == [.started, .milestone, .milestone, .milestone, .complete])
    }
}
