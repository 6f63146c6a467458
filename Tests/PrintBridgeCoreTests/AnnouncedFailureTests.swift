import Testing
@testable import PrintBridgeCore

/// ha-bambulab raises `event_print_failed` while pybambu reads the report
/// that turns the printer FAILED, before the coordinator writes the status
/// entity (pybambu's models.py `PrintJob.print_update`, ha-bambulab's
/// coordinator.py): "Print Failed" leaves within a second of the failed
/// status in every order, and a cancel code still makes it a cancel.
@Suite struct AnnouncedFailureTests {
    let printError: [String: JSONValue] = ["code": "0300_8003", "error": "Spaghetti defects were detected."]
    let cancelCode: [String: JSONValue] = ["code": "0300_400C", "error": "Printing was cancelled."]

    @Test(arguments: [
        ["event", "status", "error"], ["event", "error", "status"], ["status", "event", "error"],
        ["status", "error", "event"], ["error", "status", "event"],
    ])
    func aFailureIsToldWithinASecondOfItsStatus(order: [String]) throws {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
        h.startPrint(HA.x1c)
        h.wait(60)
        var statusAt = h.clock.now()
        var produced: [Push] = []
        for step in order {
            switch step {
            case "event": produced += h.busEvent(HA.x1c, "event_print_failed", after: 0.004)
            case "status":
                produced += h.set(HA.x1c, "_print_status", "failed", after: 0.004)
                statusAt = h.clock.now()
            default: produced += h.set(HA.x1c, "_print_error", "on", after: 0.004, attributes: printError)
            }
        }
        #expect(produced.isEmpty, "a cancel code in the printer's next report may still follow")
        let told = h.wait(1)
        #expect(told.events == [.failed, .update, .end], "the activity lit by an update with the alert, then its end")
        let failed = try #require(told.first)
        #expect(failed.createdAt - statusAt < 0.801, "decided by 0.8 s, leaving the rest of the second to reach APNs; told \(failed.createdAt - statusAt) s after the failed status")
        #expect(failed.reason == "Spaghetti defects were detected.")
        #expect(h.wait(60).isEmpty, "told once")
    }

    @Test func aCancelCodeInTheNextReportStillMakesItACancel() {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
        h.startPrint(HA.x1c)
        h.busEvent(HA.x1c, "event_print_failed", after: 60)
        #expect(h.set(HA.x1c, "_print_status", "failed", after: 0.004).isEmpty)
        let cancelled = h.set(HA.x1c, "_print_error", "on", after: 0.5, attributes: cancelCode)
        #expect(cancelled.events == [.cancelled, .end])
        #expect(h.wait(60).isEmpty)
        #expect(!h.pushes.events.contains(.failed))
    }

    @Test(arguments: [true, false])
    func theCancelEventWhicheverSideOfTheStatus(eventFirst: Bool) {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        if eventFirst {
            #expect(h.busEvent(HA.x1c, "event_print_canceled", after: 60).isEmpty)
            #expect(h.set(HA.x1c, "_print_status", "failed", after: 0.004).events == [.cancelled])
        } else {
            #expect(h.set(HA.x1c, "_print_status", "failed", after: 60).isEmpty)
            #expect(h.busEvent(HA.x1c, "event_print_canceled", after: 0.3).events == [.cancelled])
        }
        #expect(h.wait(60).isEmpty)
    }

    @Test func anEventLongAfterTheStatusTellsTheFailureAtOnce() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_status", "failed", after: 60)
        #expect(h.wait(3).isEmpty)
        #expect(h.busEvent(HA.x1c, "event_print_failed").events == [.failed])
        #expect(h.wait(60).isEmpty)
    }

    /// An announcement counts only for the print it was made in.
    @Test func anAnnouncementWithoutAPrintIsForgotten() {
        var h = PipelineHarness(devices: [device()])
        h.set(HA.x1c, "_print_status", "idle")
        h.busEvent(HA.x1c, "event_print_failed", after: 1)
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_status", "failed", after: 60)
        #expect(h.wait(9.9).isEmpty, "the whole cancel window")
        #expect(h.wait(0.1).events == [.failed])
    }

    @Test func eventsOfAnotherIntegrationMeanNothing() {
        var h = PipelineHarness(devices: [device()])
        h.set("octoprint", "_current_state", "Operational")
        h.set("octoprint", "_current_state", "Printing", after: 1)
        h.wait(10)
        #expect(h.busEvent("octoprint", "event_print_failed", after: 1).isEmpty)
        #expect(h.pushes.alerts.events == [.started])
    }
}

extension AnnouncedFailureTests {
    /// A real cancel in two reports (captured with ha-bambulab and a
    /// simulated printer): the code and `event_print_canceled`, then the
    /// failed status and `event_print_failed` 0.5 s later, while the start
    /// was still settling. The start is told with a running Live Activity,
    /// then the one cancel.
    @Test func aPrintCancelledWhileItsStartSettlesShowsRunningThenTheCancel() {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
        h.set(HA.x1c, "_print_status", "idle")
        h.set(HA.x1c, "_print_status", "running", after: 10)
        h.busEvent(HA.x1c, "event_print_canceled", after: 2)
        h.set(HA.x1c, "_print_error", "on", after: 0.002, attributes: cancelCode)
        h.busEvent(HA.x1c, "event_print_failed", after: 0.5)
        h.set(HA.x1c, "_print_status", "failed", after: 0.002)
        h.wait(60)
        #expect(h.pushes.events == [.started, .update, .cancelled, .end])
        let states = h.pushes.liveActivity.compactMap { $0.json["aps"]?["content-state"]?["status"]?.stringValue }
        #expect(states == ["running", "cancelled"])
    }
}
