import Testing
@testable import PrintBridgeCore

/// What each ended print records for the statistics beyond the history:
/// its pauses (by HA's clock) and the material its printer reported, and
/// nothing where the printer reported nothing.
@Suite struct PrintStatisticsTests {
    static let white = ["type": JSONValue.string("PLA"), "color": .string("#ffffffff")]

    @Test func pausesAreCountedByHAsClockAndAPauseOpenAtTheEndLastsToIt() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_status", "pause", after: 600)
        h.set(HA.x1c, "_print_status", "running", after: 300)
        h.set(HA.x1c, "_print_status", "pause", after: 900)
        h.set(HA.x1c, "_print_status", "running", after: 120)
        h.set(HA.x1c, "_print_status", "finish", after: 1200)
        #expect(h.prints.count == 1)
        let record = h.prints[0]
        #expect(record.pausedSeconds == 420)
        #expect(record.printingSeconds == record.endedAt.seconds - record.startedAt.seconds - 420)

        // The next print starts afresh; cancelled while paused, the pause runs to the end.
        h.set(HA.x1c, "_print_status", "idle", after: 60)
        h.set(HA.x1c, "_print_status", "running", after: 60)
        h.wait(h.pipeline.planner.configuration.startSettle)
        h.set(HA.x1c, "_print_status", "pause", after: 100)
        h.set(HA.x1c, "_print_error", "on", after: 500, attributes: ["code": .string("0300_400C")])
        h.set(HA.x1c, "_print_status", "failed", after: 0)
        h.wait(60)
        #expect(h.prints.map(\.outcome) == [.complete, .cancelled])
        #expect(h.prints.last?.pausedSeconds == 500)
    }

    @Test func bambuMaterialBySpoolWithItsTypeAndColour() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        // ha-bambulab since v2.1: the active tray says which spool it is.
        h.set(HA.x1c, "_active_tray", "Bambu PLA Basic", after: 5,
              attributes: Self.white.merging(["ams_index": 0, "tray_index": 0]) { $1 })
        h.set(HA.x1c, "_print_weight", "42.5", after: 5, attributes: ["AMS 1 Tray 1": 30, "AMS 1 Tray 3": 12.5])
        h.set(HA.x1c, "_print_length", "14.1", after: 1, attributes: ["AMS 1 Tray 1": 10, "AMS 1 Tray 3": 4.1])
        h.set(HA.x1c, "_active_tray", "Generic PETG", after: 600,
              attributes: ["type": "PETG", "color": "#000000FF", "ams_index": 0, "tray_index": 2])
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        #expect(h.prints.first?.materials == [
            MaterialUse(type: "PLA", color: "#FFFFFFFF", grams: 30, meters: 10),
            MaterialUse(type: "PETG", color: "#000000FF", grams: 12.5, meters: 4.1),
        ])
    }

    @Test func olderHaBambulabNamesNoSpoolButOneMaterialIsThePrints() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        // v2.0.46: type and colour only.
        h.set(HA.x1c, "_active_tray", "Bambu PLA Basic", after: 5, attributes: Self.white)
        h.set(HA.x1c, "_print_weight", "20.25", after: 5, attributes: ["AMS 1 Tray 1": 20.25])
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        #expect(h.prints.first?.materials == [MaterialUse(type: "PLA", color: "#FFFFFFFF", grams: 20.25)])
    }

    @Test func noReadingIsAbsentNotZero() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        // pybambu's 0 before it has read the print's file.
        h.set(HA.x1c, "_print_weight", "0", after: 5)
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        #expect(h.prints.first?.materials == [])

        var plain = PipelineHarness(devices: [device()])
        plain.startPrint(HA.p1s)
        plain.set(HA.p1s, "_print_status", "finish", after: 600)
        #expect(plain.prints.first?.materials == [])
        #expect(plain.prints.first?.pausedSeconds == 0)
    }

    /// Moonraker's "Filament Used" reads 0 when not printing; a reading from
    /// the last print is not the next one's.
    @Test func moonrakersFilamentUsedIsTheCurrentPrintsOnly() {
        var h = PipelineHarness(devices: [device()])
        h.set("voron", "_current_print_state", "standby")
        h.set("voron", "_current_print_state", "printing", after: 1)
        h.wait(h.pipeline.planner.configuration.startSettle)
        h.set("voron", "_filament_used", "3.25", after: 600)
        h.set("voron", "_current_print_state", "complete", after: 600)
        h.set("voron", "_filament_used", "0", after: 0)
        #expect(h.prints.map(\.materials) == [[MaterialUse(meters: 3.25)]])
        h.set("voron", "_current_print_state", "standby", after: 60)
        h.set("voron", "_current_print_state", "printing", after: 60)
        h.wait(h.pipeline.planner.configuration.startSettle)
        h.set("voron", "_current_print_state", "cancelled", after: 30)
        h.wait(60)
        #expect(h.prints.count == 2)
        #expect(h.prints.last?.materials == [], "cancelled before any filament was read")
    }

    /// Seen paused straight after the last print ended (it started and
    /// paused while the agent was away): a print of its own, not the last
    /// one again.
    @Test func aPrintFirstSeenPausedAfterAnEndIsANewPrint() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c, file: "one.3mf")
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        h.set(HA.x1c, "_task_name", "two.3mf", after: 3600)
        h.set(HA.x1c, "_print_status", "pause", after: 1200)
        h.set(HA.x1c, "_print_status", "running", after: 300)
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        #expect(h.prints.map(\.file) == ["one.3mf", "two.3mf"])
        #expect(Set(h.prints.map(\.printID)).count == 2, "two prints, two ids")
        #expect(h.prints.last?.pausedSeconds == 300)
        #expect(h.prints.last.map { $0.endedAt.seconds - $0.startedAt.seconds } == 900, "from the pause it was first seen in")
    }

    /// A print does not finish paused: complete right after a pause means a
    /// resume the agent did not see, and the pause's length is unknown.
    @Test func aResumeNotSeenLeavesThePausesUnknown() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_status", "pause", after: 600)
        h.set(HA.x1c, "_print_status", "finish", after: 7200)
        #expect(h.prints.first?.outcome == .complete)
        #expect(h.prints.first?.pausedSeconds == nil && h.prints.first?.printingSeconds == nil)
    }

    /// ha-bambulab reads a print's weight from its file: a print of another
    /// file whose weight never came has none (not the last print's); a
    /// print of the same file keeps it.
    @Test func aBambuWeightFromTheLastPrintsFileIsNotThisOnes() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c, file: "one.3mf")
        h.set(HA.x1c, "_print_weight", "20", after: 5)
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        h.set(HA.x1c, "_print_status", "idle", after: 60)
        h.set(HA.x1c, "_print_status", "running", after: 60)
        h.wait(h.pipeline.planner.configuration.startSettle)
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        h.set(HA.x1c, "_task_name", "two.3mf", after: 60)
        h.set(HA.x1c, "_print_status", "running", after: 1)
        h.wait(h.pipeline.planner.configuration.startSettle)
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        #expect(h.prints.map(\.materials) == [[MaterialUse(grams: 20)], [MaterialUse(grams: 20)], []])
    }

    /// The agent restarted mid-print: the pauses and spools before the
    /// restart come back with the printer's memory and count in the record.
    @Test func aPrintAcrossARestartKeepsItsPausesAndSpools() {
        var before = PipelineHarness(devices: [device()])
        before.startPrint(HA.x1c)
        before.set(HA.x1c, "_active_tray", "Bambu PLA Basic", after: 5, attributes: Self.white)
        before.set(HA.x1c, "_print_status", "pause", after: 600)
        before.set(HA.x1c, "_print_status", "running", after: 240)
        before.set(HA.x1c, "_print_status", "pause", after: 60)
        let memory = before.pipeline.planner.printers
        #expect(memory[HA.x1c]?.pausedSeconds == 240)
        #expect(memory[HA.x1c]?.pausedSince != nil)
        #expect(memory[HA.x1c]?.spoolsSeen[""] == Material(type: "PLA", color: "#FFFFFFFF"))

        var after = PipelineHarness(devices: [device()], restoring: memory)
        after.clock.set(before.clock.now() + 100)
        // HA's states after the restart: still paused (since before), then resumed.
        after.set(HA.x1c, "_print_status", "pause")
        after.set(HA.x1c, "_print_weight", "11", attributes: ["AMS 1 Tray 1": 11])
        after.set(HA.x1c, "_print_status", "running", after: 200)
        after.set(HA.x1c, "_print_status", "finish", after: 600)
        #expect(after.prints.count == 1)
        // The restored pause's start (before the restart) is kept: 240 + (100 + 200).
        #expect(after.prints.first?.pausedSeconds == 540)
        #expect(after.prints.first?.materials == [MaterialUse(type: "PLA", color: "#FFFFFFFF", grams: 11)])
    }
}
