import Testing
@testable import PrintBridgeCore

/// What a pause leaves on the phones: a milestone crossed with it reaches
/// those that did not hear the pause, and a resume replaces "Print Paused"
/// with a quiet note on those that did.
@Suite struct PauseNoteTests {
    /// "all" hears everything; "quiet" has pause alerts off, milestones on.
    let phones = [
        Device(id: "all", apnsToken: String(repeating: "a1", count: 32)),
        Device(id: "quiet", apnsToken: String(repeating: "b2", count: 32), preferences: .init(onPaused: false)),
    ]

    func alerts(_ pushes: [Push]) -> [String] {
        pushes.alerts.map { push in
            let milestone = push.event == .milestone ? push.json["printerState"]?["progress"]?.intValue : nil
            return "\(push.deviceID) \(push.event.rawValue)" + (milestone.map { " \($0)" } ?? "")
        }
    }

    /// HA polls OctoPrint every 30 s: Printing 16 % → Paused 30.6 % in one
    /// poll, the state written before the percentage.
    @Test func aMilestoneCrossedWithThePauseReachesThePhonesThatDidNotHearThePause() {
        var h = PipelineHarness(devices: phones)
        h.set("octoprint", "_current_state", "Operational")
        h.set("octoprint", "_current_state", "Printing", after: 1)
        h.set("octoprint", "_job_percentage", "16", after: 30)
        h.wait(30)
        h.set("octoprint", "_current_state", "Paused", after: 1)
        h.set("octoprint", "_job_percentage", "30.6", after: 0.002)
        let paused = h.wait(3)
        #expect(alerts(paused) == ["all paused", "quiet milestone 25"])
        #expect(paused.alerts.first?.json["printerState"]?["progress"] == .number(30), "the pause carries the progress")
        h.set("octoprint", "_current_state", "Printing", after: 30)
        let later = h.set("octoprint", "_job_percentage", "52", after: 0.002)
        #expect(alerts(later) == ["all milestone 50", "quiet milestone 50"], "25 is not told again")
    }

    /// ha-bambulab writes the stage with the status: the pause is told at
    /// once, and the progress of the same report comes after it.
    @Test func aMilestoneReadJustAfterAToldPauseSkipsTheSamePhones() {
        var h = PipelineHarness(devices: phones)
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "16", after: 60)
        h.set(HA.x1c, "_current_stage", "paused_user", after: 60)
        #expect(alerts(h.set(HA.x1c, "_print_status", "pause", after: 0.002)) == ["all paused"])
        #expect(alerts(h.set(HA.x1c, "_print_progress", "31", after: 0.002)) == ["quiet milestone 25"])
    }

    @Test func aResumeReplacesThePausedAlertQuietly() throws {
        var h = PipelineHarness(devices: phones)
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_current_stage", "paused_filament_runout", after: 60)
        h.set(HA.x1c, "_print_status", "pause", after: 0.002)
        let paused = try #require(h.wait(3).alerts.first, "a runout waits for its slot, at most the reason window")
        h.wait(10)
        let resumed = h.set(HA.x1c, "_print_status", "running", after: 1200).alerts
        #expect(alerts(resumed) == ["all resumed"], "only the phone that got the paused alert")
        let note = try #require(resumed.first)
        #expect(note.collapseID == paused.collapseID, "it takes the paused alert's place")
        #expect(note.title == "Print Resumed")
        #expect(note.body == "benchy.3mf resumed on x1c_00m09a350100123")
        #expect(note.json["aps"]?["interruption-level"] == "passive")
        #expect(note.json["aps"]?["sound"] == nil, "no sound")
        #expect(note.json["printerState"]?["type"] == "print_resumed")
        #expect(note.apnsID != paused.apnsID)
        // A second pause and resume in the same print: a note of its own.
        h.set(HA.x1c, "_print_status", "pause", after: 60)
        h.wait(10)
        let again = h.set(HA.x1c, "_print_status", "running", after: 60).alerts
        #expect(alerts(again) == ["all resumed"])
        #expect(again.first?.apnsID != note.apnsID)
    }

    @Test func aPauseThatEndsLeavesNoNoteForLater() {
        var h = PipelineHarness(devices: phones)
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_current_stage", "paused_user", after: 60)
        h.set(HA.x1c, "_print_status", "pause", after: 0.002)
        h.set(HA.x1c, "_print_status", "finish", after: 60)
        h.startPrint(HA.x1c, file: "next.3mf")
        #expect(!alerts(h.pushes).contains { $0.hasSuffix("resumed") })
    }
}

extension PauseNoteTests {
    /// HA's OctoPrint writes a poll's state before its percentage: the
    /// resume's update goes at once with the paused progress, and the rest
    /// of the poll follows once it has settled, not a throttle later.
    @Test func theRestOfTheResumesReportFollowsItsUpdate() throws {
        var h = PipelineHarness(devices: [device(activity: ["octoprint": HA.activityToken])])
        h.set("octoprint", "_current_state", "Operational")
        h.set("octoprint", "_current_state", "Printing", after: 1)
        h.set("octoprint", "_job_percentage", "23.3", after: 30)
        h.wait(30)
        h.set("octoprint", "_current_state", "Paused", after: 1)
        h.set("octoprint", "_job_percentage", "25.2", after: 0.002)
        h.wait(60)
        let resumed = h.set("octoprint", "_current_state", "Printing", after: 30)
        #expect(resumed.liveActivity.first?.json["aps"]?["content-state"]?["progress"] == .number(25))
        h.set("octoprint", "_job_percentage", "44.2", after: 0.002)
        let followUp = h.wait(2).liveActivity
        #expect(followUp.count == 1, "the poll's percentage, 2 s after the resume's update")
        #expect(followUp.first?.json["aps"]?["content-state"]?["progress"] == .number(44))
        #expect(followUp.first?.priority == 5)
        // Routine changes after that keep the 30 s throttle.
        h.set("octoprint", "_job_percentage", "52", after: 28)
        #expect(h.wait(1).liveActivity.isEmpty)
        #expect(h.wait(2).liveActivity.count == 1)
    }
}
