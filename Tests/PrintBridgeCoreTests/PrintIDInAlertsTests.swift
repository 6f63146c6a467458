import Testing
@testable import PrintBridgeCore

/// A tap on an alert opens the print it is about: every alert about a print
/// carries `printerState.printId`, the id of its history record (the one the
/// silent push at its end names), known from its start on; an alert about
/// no print carries none.
@Suite struct PrintIDInAlertsTests {
    func printID(_ push: Push) -> String? { push.json["printerState"]?["printId"]?.stringValue }

    @Test func everyAlertOfAPrintNamesItsHistoryRecord() throws {
        var h = PipelineHarness(devices: [device()])
        h.set(HA.x1c, "_bed_temperature", "60")
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "30", after: 60)
        h.set(HA.x1c, "_print_status", "pause", after: 60)
        h.wait(60)
        h.set(HA.x1c, "_print_status", "running", after: 60)
        h.set(HA.x1c, "_print_progress", "100", after: 60)
        h.set(HA.x1c, "_print_status", "finish", after: 1)
        h.wait(h.pipeline.planner.configuration.flickerWindow)
        h.set(HA.x1c, "_bed_temperature", "30", after: 600)
        let record = try #require(h.prints.first)
        let alerts = h.pushes.alerts
        #expect(alerts.events == [.started, .milestone, .paused, .resumed, .milestone, .complete, .bedCooled])
        for alert in alerts { #expect(printID(alert) == record.printID, "\(alert.event)") }
        #expect(h.background.first.map(printID) == record.printID, "the silent push names the same")
    }

    @Test func aPrinterErrorNamesThePrintOnlyWhileOneIsUnderWay() throws {
        var h = PipelineHarness(devices: [device()])
        h.set(HA.x1c, "_print_status", "idle")
        h.hms(HA.x1c, [])
        h.hms(HA.x1c, [heatbedSensor], after: 60)
        let idle = try #require(h.wait(3).first)
        #expect(idle.event == .printerError && printID(idle) == nil, "no print: no printId key")
        #expect(!idle.payloadText.contains("printId"))
        h.hms(HA.x1c, [], after: 60)
        h.startPrint(HA.x1c)
        h.hms(HA.x1c, [runoutA1], after: 60)
        let printing = try #require(h.wait(3).first)
        #expect(printing.event == .printerError)
        #expect(printID(printing) == h.pushes.alerts.first { $0.event == .started }.flatMap(printID))
        #expect(printID(printing)?.hasPrefix(HA.x1c + "-") == true)
    }
}
