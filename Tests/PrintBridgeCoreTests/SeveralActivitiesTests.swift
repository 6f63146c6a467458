import Testing
@testable import PrintBridgeCore

/// Two phones on one printer, each with its own Live Activity, registered
/// as the app does it (no device id): both activities follow the whole print.
@Suite struct SeveralActivitiesTests {
    let first = String(repeating: "c1", count: 40)
    let second = String(repeating: "c2", count: 40)

    func harness() -> PipelineHarness {
        PipelineHarness(devices: [
            device("phone", printers: [HA.x1c]), .activity(token: first, printerPrefix: HA.x1c),
            .activity(token: second, printerPrefix: HA.x1c),
        ])
    }

    @Test func everyActivityGetsTheUpdatesAndTheEnd() {
        var h = harness()
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "40", after: 60)
        h.wait(60)
        h.set(HA.x1c, "_print_status", "finish", after: 60)
        for token in [first, second] {
            let mine = h.pushes.filter { $0.token == token }
            #expect(mine.map(\.event) == [.update, .update, .end], "\(token.prefix(4))")
        }
        #expect(h.pushes.alerts.allSatisfy { $0.deviceID == "phone" }, "activities get no alerts")
        #expect(h.pushes.alerts.events == [.started, .milestone, .complete])
        #expect(h.pipeline.devices.allSatisfy { $0.activityTokens.isEmpty }, "ended activities' tokens are spent")
    }

    @Test func aRefusedTokenStopsOnlyItsOwnActivity() {
        var h = harness()
        h.startPrint(HA.x1c)
        let dropped = h.pipeline.applyTokenRejection(token: first, action: .remove)
        #expect(dropped.count == 1)
        h.set(HA.x1c, "_print_progress", "40", after: 60)
        h.wait(60)
        h.set(HA.x1c, "_print_status", "finish", after: 60)
        #expect(h.pushes.filter { $0.token == first }.map(\.event) == [.update], "only the start, before the 410")
        #expect(h.pushes.filter { $0.token == second }.map(\.event) == [.update, .update, .end])
    }
}
