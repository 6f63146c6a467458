import Testing
@testable import PrintBridgeCore

/// Each print that ends is recorded once, with what the user would want to
/// look back on: file, start, end, outcome and why, how far it got.
@Suite struct PrintHistoryTests {
    @Test func aCompletePrintIsRecordedOnceWithItsFileTimesAndLayers() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c, file: "benchy.3mf")
        let started = h.clock.now()
        h.set(HA.x1c, "_total_layer_count", "300")
        for percent in stride(from: 10, through: 90, by: 10) {
            h.set(HA.x1c, "_print_progress", String(percent), after: 600)
            h.set(HA.x1c, "_current_layer", String(percent * 3))
        }
        h.set(HA.x1c, "_print_status", "finish", after: 300)
        #expect(h.prints.count == 1)
        let record = h.prints[0]
        #expect(record.printer == HA.x1c)
        #expect(record.file == "benchy.3mf")
        #expect(record.outcome == .complete && record.reason == nil)
        #expect(record.endedAt == h.clock.now())
        // The start is when the status became running (HA's last_changed), before the settle.
        #expect(record.startedAt.seconds == (started.seconds - h.pipeline.planner.configuration.startSettle).rounded(.down))
        #expect(record.durationSeconds == Int((record.endedAt.seconds - record.startedAt.seconds).rounded()))
        #expect(record.progress == 100 && record.currentLayer == 300 && record.totalLayers == 300)
        // Nothing more is recorded while the printer sits finished.
        h.set(HA.x1c, "_print_status", "finish", after: 60)
        h.set(HA.x1c, "_print_status", "idle", after: 60)
        #expect(h.prints.count == 1)
    }

    @Test func aCancelInEitherOrderIsOneCancelledRecord() {
        for codeFirst in [true, false] {
            var h = PipelineHarness(devices: [device()])
            h.startPrint(HA.p1s, file: "bracket.3mf")
            h.set(HA.p1s, "_print_progress", "42", after: 600)
            if codeFirst {
                h.set(HA.p1s, "_print_error", "on", after: 1, attributes: ["code": .string("0300_400C")])
                h.set(HA.p1s, "_print_status", "failed", after: 1)
            } else {
                h.set(HA.p1s, "_print_status", "failed", after: 1)
                h.set(HA.p1s, "_print_error", "on", after: 1, attributes: ["code": .string("0300_400C")])
            }
            h.wait(60)
            #expect(h.prints.map(\.outcome) == [.cancelled], "code first: \(codeFirst)")
            #expect(h.prints.first?.reason == "cancelled by the user")
            #expect(h.prints.first?.progress == 42)
        }
    }

    @Test func aFailureKeepsBambusErrorCode() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "12", after: 600)
        // pybambu's PrintError: 117473286 is "0700_8006" (filament could not be fed).
        h.set(HA.x1c, "_print_error", "on", after: 1, attributes: ["code": .string("0700_8006")])
        h.set(HA.x1c, "_print_status", "failed", after: 1)
        h.wait(h.pipeline.planner.configuration.cancelWindow)
        #expect(h.prints.map(\.outcome) == [.failed])
        #expect(h.prints.first?.reason == "print error 0700-8006")
        #expect(h.prints.first?.progress == 12)
    }

    @Test func aPrintThatGoesIdleIsRecordedAsAbandoned() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "30", after: 600)
        h.set(HA.x1c, "_print_status", "idle", after: 1)
        h.wait(h.pipeline.planner.configuration.flickerWindow)
        #expect(h.prints.map(\.outcome) == [.abandoned])
        #expect(h.prints.first?.reason == "the printer went idle without finishing")
    }

    @Test func twoPrintsAreTwoRecordsWithTheirOwnIDs() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c, file: "one.3mf")
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        h.set(HA.x1c, "_task_name", "two.3mf", after: 60)
        h.set(HA.x1c, "_print_status", "running", after: 1)
        h.wait(h.pipeline.planner.configuration.startSettle)
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        #expect(h.prints.map(\.file) == ["one.3mf", "two.3mf"])
        #expect(Set(h.prints.map(\.printID)).count == 2)
    }

    @Test func bambuNotationAndPrintStart() {
        #expect(PrintRecord.bambuNotation(50_348_044) == "0300-400C")
        #expect(PrintRecord.bambuNotation(117_473_286) == "0700-8006")
        #expect(PrintRecord.bambuNotation(0x1234) == "0000-1234")
        #expect(PrintRecord.startTime(ofPrintID: "x1c_00m09a350100123-1700000000") == EpochTime(seconds: 1_700_000_000))
        #expect(PrintRecord.startTime(ofPrintID: "no-number-here") == nil)
    }
}
