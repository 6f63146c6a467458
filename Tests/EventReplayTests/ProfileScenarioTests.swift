import EventReplay
import FoundationEssentials
import PrintBridgeCore
import PrinterActivityContent
import Testing

/// The OctoPrint, PrusaLink and Moonraker recordings, stated as behaviour:
/// every profile gets the same alerts and Live Activity ends as ha-bambulab.
@Suite struct ProfileScenarioTests {
    func pushes(_ name: String) -> [Push] { replay([Repo.sampleEvents + "/" + name]).pushes }

    func alerts(_ name: String) -> [String] {
        pushes(name).filter { $0.kind == .alert }.map { "\($0.printerPrefix) \($0.event.rawValue)" }
    }

    /// Each Live Activity end: printer, status, progress, current/total layers.
    func ends(_ name: String) -> [String] {
        pushes(name).filter { $0.event == .end }.compactMap { push in
            guard let state = push.json["aps"]?["content-state"] else { return nil }
            let numbers = ["progress", "currentLayer", "totalLayers"].map { String(state[$0]?.intValue ?? -1) }
            return "\(push.printerPrefix) \(state["status"]?.stringValue ?? "?") " + numbers.joined(separator: " ")
        }
    }

    /// HA's newer OctoPrint integration (ENUM states, Current File), made by
    /// hand from its source (HA 2024.3, the one that runs here, has neither).
    @Test func octoPrintFinishSeenAsOperationalAndTwoKindsOfCancel() {
        #expect(alerts("octoprint-newer-ha.jsonl") == [
            "octoprint started", "octoprint_2 started", "octoprint milestone", "octoprint_2 milestone",
            "octoprint milestone", "octoprint_2 cancelled", "octoprint milestone", "octoprint complete",
            "octoprint started", "octoprint cancelled",
        ])
        // The cancel between two polls ends at the last real progress, not the cleared 0.
        #expect(ends("octoprint-newer-ha.jsonl") == [
            "octoprint_2 cancelled 33 0 0", "octoprint complete 100 0 0", "octoprint cancelled 16 0 0",
        ])
        let started = pushes("octoprint-newer-ha.jsonl").first { $0.event == .started }
        #expect(started?.json["aps"]?["alert"]?["body"]?.stringValue == "benchy.gcode started on OctoPrint")
    }

    /// The real chain's capture (RealOctoPrintTests: HA 2024.3.3, three
    /// OctoPrint 1.11.8 with the Virtual Printer): a pause in the poll that
    /// crosses 25 %, a cancel, OctoPrint stopped mid-print and back without
    /// the job, a network drop, an HA restart.
    @Test func theRealOctoPrintChainsCapture() {
        #expect(alerts("octoprint-prints.jsonl") == [
            "octoprint_2 started", "octoprint_3 started", "octoprint_2 cancelled", "octoprint started",
            "octoprint paused", "octoprint_2 started", "octoprint_3 offline", "octoprint resumed",
            "octoprint_3 back_online", "octoprint_3 milestone", "octoprint milestone", "octoprint_3 milestone",
            "octoprint_2 offline", "octoprint milestone", "octoprint_2 failed", "octoprint complete",
            "octoprint_3 complete", "octoprint_3 bed_cooled", "octoprint bed_cooled",
            "octoprint_2 failed",  // told again, unopened (issue 53)
        ])
        #expect(ends("octoprint-prints.jsonl") == [
            "octoprint_2 cancelled 17 0 0", "octoprint_2 failed 13 0 0", "octoprint complete 100 0 0",
            "octoprint_3 complete 100 0 0",
        ])
        let failed = pushes("octoprint-prints.jsonl").first { $0.event == .failed }
        #expect(failed?.json["printerState"]?["reason"]?.stringValue == "The printer went offline mid-print.")
        // HA 2024.3's integration has no file-name sensor: an alert names no file.
        let started = pushes("octoprint-prints.jsonl").first { $0.event == .started }
        #expect(started?.json["aps"]?["alert"]?["body"]?.stringValue == "Print started on OctoPrint")
    }

    @Test func prusaLinkAttentionIsAPauseStoppedIsACancel() {
        #expect(alerts("prusalink-prints.jsonl") == [
            "prusa_mk4 started", "prusa_mk4 milestone", "prusa_mk4 paused", "prusa_mk4 resumed", "prusa_mk4 milestone",
            "prusa_mk4 milestone", "prusa_mk4 complete", "prusa_mk4 started", "prusa_mk4 milestone",
            "prusa_mk4 cancelled",
        ])
        #expect(ends("prusalink-prints.jsonl") == ["prusa_mk4 complete 100 0 0", "prusa_mk4 cancelled 40 0 0"])
        // The finish timestamp gives the remaining time: "Print finish" 10:02:30
        // read at 09:00:31.3, when the job coordinator wrote it.
        let firstUpdate = pushes("prusalink-prints.jsonl").first { $0.event == .update }
        #expect(firstUpdate?.json["aps"]?["content-state"]?["remainingSeconds"]?.intValue == 3719)
    }

    @Test func moonrakerKeepsRealValuesThroughPauseAndEnds() {
        #expect(alerts("moonraker-prints.jsonl") == [
            "voron started", "voron milestone", "voron milestone", "voron paused", "voron resumed", "voron milestone",
            "voron complete",
            "voron started", "voron milestone", "voron cancelled", "voron started", "voron failed",
            "voron failed",  // told again, unopened (issue 53)
        ])
        #expect(ends("moonraker-prints.jsonl") == [
            "voron complete 100 240 240", "voron cancelled 28 21 80", "voron failed 12 8 120",
        ])
        let paused = pushes("moonraker-prints.jsonl").first {
            $0.event == .update && $0.json["aps"]?["content-state"]?["status"]?.stringValue == "paused"
        }
        let state = paused?.json["aps"]?["content-state"]
        #expect(state?["progress"]?.intValue == 50 && state?["totalLayers"]?.intValue == 240, "Moonraker's zeros while paused are no readings")
    }
}
