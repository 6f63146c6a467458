import Testing
@testable import PrintBridgeCore

/// A printer that stops reporting mid-print (HA shows its status
/// `unavailable` or `offline`: OctoPrint stopped, a Bambu off Wi-Fi): told
/// once it has been quiet for `offlineWindow`; back printing, a quiet note;
/// back without the print, the print failed.
@Suite struct OfflineTests {
    func printing(_ configuration: PlannerConfiguration = .init()) -> PipelineHarness {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])], configuration: configuration)
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "40", after: 60)
        h.wait(60)
        return h
    }

    @Test func aPrinterQuietForTheWindowIsToldOnceAndItsReturnQuietly() throws {
        var h = printing()
        #expect(h.set(HA.x1c, "_print_status", "unavailable", after: 10).isEmpty)
        h.set(HA.x1c, "_print_status", "offline", after: 30)
        #expect(h.wait(29.9).isEmpty)
        let told = h.wait(0.1)
        #expect(told.events == [.offline])
        let offline = try #require(told.first)
        #expect(offline.title == "Printer Offline")
        #expect(offline.body == "x1c_00m09a350100123 stopped reporting during benchy.3mf")
        #expect(offline.collapseID == "x1c_00m09a350100123.offline")
        #expect(offline.json["printerState"]?["type"] == "printer_offline")
        #expect(h.wait(3600).isEmpty, "once")
        let back = h.set(HA.x1c, "_print_status", "running", after: 1)
        #expect(back.events == [.backOnline])
        #expect(back.first?.collapseID == offline.collapseID, "it replaces the offline alert")
        #expect(back.first?.json["aps"]?["interruption-level"] == "passive")
        #expect(back.first?.body == "x1c_00m09a350100123 is reporting again; benchy.3mf goes on")
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        #expect(h.pushes.alerts.events == [.started, .milestone, .offline, .backOnline, .complete])
    }

    @Test func aShortSilenceTellsNothing() {
        var h = printing()
        h.set(HA.x1c, "_print_status", "unavailable", after: 10)
        #expect(h.set(HA.x1c, "_print_status", "running", after: 59).isEmpty)
        #expect(h.wait(3600).isEmpty)
        #expect(h.pushes.alerts.events == [.started, .milestone])
    }

    @Test func anIdlePrinterGoingQuietTellsNothing() {
        var h = PipelineHarness(devices: [device()])
        h.set(HA.x1c, "_print_status", "idle")
        h.set(HA.x1c, "_print_status", "unavailable", after: 10)
        #expect(h.wait(3600).isEmpty)
    }

    @Test func aWindowOfZeroNeverTells() {
        var configuration = PlannerConfiguration()
        configuration.offlineWindow = 0
        var h = printing(configuration)
        h.set(HA.x1c, "_print_status", "unavailable", after: 10)
        #expect(h.wait(3600).isEmpty)
    }

    @Test func backFinishedIsAFinish() {
        var h = printing()
        h.set(HA.x1c, "_print_status", "offline", after: 10)
        h.wait(600)
        h.set(HA.x1c, "_print_progress", "100", after: 1)
        let finished = h.set(HA.x1c, "_print_status", "finish", after: 0.002)
        #expect(finished.events == [.complete, .end])
    }

    /// A Bambu printer back idle after a long silence: the print it had is
    /// gone; told as failed when the flicker window ends.
    @Test func backIdleWithoutThePrintIsAFailure() throws {
        var h = printing()
        h.set(HA.x1c, "_print_status", "offline", after: 10)
        h.wait(600)
        #expect(h.set(HA.x1c, "_print_status", "idle", after: 1).isEmpty)
        let ended = h.wait(60)
        #expect(ended.events == [.failed, .update, .end])
        #expect(ended.first?.reason == "The printer went offline mid-print.")
        #expect(ended.liveActivity.first?.json["aps"]?["content-state"]?["status"] == "failed")
        #expect(ended.liveActivity.first?.json["aps"]?["content-state"]?["progress"] == .number(40))
        #expect(h.prints.last?.outcome == .failed)
        #expect(h.prints.last?.reason == "the printer went offline mid-print")
    }

    /// OctoPrint stopped mid-print and started again: HA shows its state
    /// unavailable, then Operational with no job (the print stopped with
    /// OctoPrint). Never "complete", never "cancelled".
    @Test(arguments: [90.0, 20.0])
    func octoPrintBackOperationalAfterAStopIsAFailure(quietFor: Double) throws {
        var h = PipelineHarness(devices: [device(activity: ["octoprint": HA.activityToken])])
        h.set("octoprint", "_current_state", "Operational")
        h.set("octoprint", "_current_state", "Printing", after: 1)
        h.set("octoprint", "_job_percentage", "40", after: 30)
        h.wait(30)
        h.set("octoprint", "_current_state", "unavailable", after: 30)
        h.set("octoprint", "_job_percentage", "unavailable", after: 0.002)
        h.wait(quietFor)
        h.set("octoprint", "_current_state", "Operational", after: 1)
        h.set("octoprint", "_job_percentage", "0", after: 0.002)
        h.wait(60)
        let alerts = h.pushes.alerts.events
        #expect(alerts == (quietFor >= 60 ? [.started, .milestone, .offline, .failed] : [.started, .milestone, .failed]))
        let failed = try #require(h.pushes.alerts.last)
        #expect(failed.reason == "The printer went offline mid-print.")
        let end = h.pushes.liveActivity.last?.json["aps"]?["content-state"]
        #expect(end?["status"] == "failed")
        #expect(end?["progress"] == .number(40), "where the print stopped")
    }

    @Test func theSilenceIsRememberedAcrossARestart() throws {
        var h = printing()
        h.set(HA.x1c, "_print_status", "unavailable", after: 10)
        h.wait(70)
        let remembered = h.pipeline.planner.printers
        #expect(remembered[HA.x1c]?.silence?.toldTo == ["phone"])
        var restarted = PipelineHarness(devices: [device()], restoring: remembered)
        restarted.clock.set(h.clock.now())
        restarted.set(HA.x1c, "_print_status", "running", after: 5)
        #expect(restarted.pushes.alerts.events == [.backOnline], "the phone told hears of the return")
    }
}

extension OfflineTests {
    /// A failure the printer reports itself after a silence keeps its own reason.
    @Test func aRealFailureAfterASilenceSaysItsOwnReason() {
        var h = printing()
        h.set(HA.x1c, "_print_status", "offline", after: 10)
        h.wait(90)
        h.set(HA.x1c, "_print_error", "on", after: 1, attributes: ["code": "0300_8003", "error": "Spaghetti defects were detected."])
        h.set(HA.x1c, "_print_status", "failed", after: 0.002)
        let failed = h.wait(10).alerts
        #expect(failed.events == [.failed])
        #expect(failed.first?.reason == "Spaghetti defects were detected.")
    }
}

extension OfflineTests {
    /// Replay fires scheduled work only when the next message comes: a
    /// Live Activity update and the offline alert due between two messages
    /// are each told at their own time, as `run` (woken at each) tells them.
    @Test func twoDeadlinesBetweenTwoMessagesAreEachToldAtTheirOwnTime() throws {
        var h = printing()
        h.set(HA.x1c, "_print_progress", "41", after: 1)  // a routine update, due after the throttle
        h.set(HA.x1c, "_print_status", "unavailable", after: 1)
        let quietAt = h.clock.now()
        let due = h.wait(600)  // one call, as replay makes at the next message
        let update = try #require(due.first { $0.event == .update })
        let offline = try #require(due.first { $0.event == .offline })
        #expect(update.createdAt < offline.createdAt)
        #expect(offline.createdAt == quietAt + 60, "told when the window ended, not with the update")
    }
}
