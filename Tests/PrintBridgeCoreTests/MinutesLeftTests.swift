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
}
