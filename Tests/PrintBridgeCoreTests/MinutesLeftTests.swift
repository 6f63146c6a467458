import Testing
@testable import PrintBridgeCore

/// "N minutes left" (issue 53): once a print, to the phones that asked,
/// when ha-bambulab's remaining time (minutes) first falls to N.
@Suite struct MinutesLeftTests {
    let phones = [
        Device(id: "ten", apnsToken: String(repeating: "a1", count: 32),
               preferences: .init(schedule: AlertSchedule(minutesLeft: 10))),
        Device(id: "none", apnsToken: String(repeating: "b2", count: 32)),
    ]

    @Test func toldOnceWhenTheRemainingTimeFallsToTheMinutes() throws {
        var h = PipelineHarness(devices: phones)
        h.startPrint(HA.x1c)
        #expect(h.set(HA.x1c, "_remaining_time", "42", after: 60).alerts.isEmpty)
        #expect(h.set(HA.x1c, "_remaining_time", "11", after: 60).alerts.isEmpty)
        let told = h.set(HA.x1c, "_remaining_time", "9", after: 120).alerts
        let alert = try #require(told.first)
        #expect(told.count == 1 && alert.deviceID == "ten" && alert.event == .minutesLeft)
        #expect(alert.json["aps"]?["alert"]?["title"]?.stringValue == "10 minutes left")
        #expect(alert.json["printerState"]?["type"]?.stringValue == "minutes_left")
        h.set(HA.x1c, "_remaining_time", "12", after: 60)
        #expect(h.set(HA.x1c, "_remaining_time", "8", after: 60).alerts.isEmpty, "an estimate back up and down: once")
    }

    @Test func aPrintFirstSeenUnderTheMinutesIsNotTold() {
        var h = PipelineHarness(devices: phones)
        h.startPrint(HA.x1c)
        #expect(h.set(HA.x1c, "_remaining_time", "5", after: 60).alerts.isEmpty)
        #expect(h.set(HA.x1c, "_remaining_time", "4", after: 60).alerts.isEmpty)
    }

    /// OctoPrint says when the print will finish, not how long is left: the
    /// remaining time moves with every change of the printer. A progress
    /// reading that takes it under N is the crossing (the finish time itself
    /// did not change).
    @Test func aFinishTimeCrossedByAnotherReadingIsTold() throws {
        let clock = ManualClock(ISO8601.parse("2026-11-20T10:00:00+00:00")!)
        var pipeline = PrinterPipeline(planner: PushPlanner(configuration: PlannerConfiguration()), devices: phones, clock: clock)
        func match(_ field: PrinterField) -> EntityMatch { EntityMatch(prefix: "octoprint", field: field, profile: .octoPrint) }
        func change(_ field: PrinterField, _ id: String, _ value: String) -> [Push] {
            pipeline.handle(PrinterInput(time: clock.now(), .entity(
                match(field), new: HAState(entityID: id, state: value), old: nil))).pushes
        }
        _ = pipeline.handle(PrinterInput(time: clock.now(), .snapshot([
            MatchedState(match: match(.status), state: HAState(entityID: "sensor.octoprint_current_state", state: "Operational")),
        ])))
        clock.advance(by: 1)
        _ = change(.status, "sensor.octoprint_current_state", "Printing")
        let finish = ISO8601.format(clock.now() + 30 * 60)
        _ = change(.finishTime, "sensor.octoprint_estimated_finish_time", finish)
        clock.advance(by: 10)
        _ = pipeline.fireDue(upTo: clock.now())
        clock.advance(by: 15 * 60)
        #expect(!change(.progress, "sensor.octoprint_job_percentage", "50").contains { $0.event == .minutesLeft })
        clock.advance(by: 6 * 60)
        let told = change(.progress, "sensor.octoprint_job_percentage", "70").filter { $0.event == .minutesLeft }
        #expect(told.count == 1 && told.first?.deviceID == "ten", "\(told.map(\.deviceID))")
    }
}
