import Testing
@testable import PrintBridgeCore

/// Milestones per phone (issue 53): each hears the highest of its own list
/// crossed, once; a phone without a list has the agent's.
@Suite struct PhoneMilestonesTests {
    let phones = [
        Device(id: "agents", apnsToken: String(repeating: "a1", count: 32)),
        Device(id: "half", apnsToken: String(repeating: "b2", count: 32),
               preferences: .init(schedule: AlertSchedule(milestones: [50]))),
        Device(id: "tens", apnsToken: String(repeating: "c3", count: 32),
               preferences: .init(schedule: AlertSchedule(milestones: AlertSchedule.every(10)))),
    ]

    func heard(_ pushes: [Push]) -> [String] {
        pushes.alerts.filter { $0.event == .milestone }.map { push in
            "\(push.deviceID) \(push.json["printerState"]?["progress"]?.intValue ?? -1)"
        }.sorted()
    }

    @Test func eachPhoneHearsItsOwnMilestones() {
        var h = PipelineHarness(devices: phones)
        h.startPrint(HA.x1c)
        #expect(heard(h.set(HA.x1c, "_print_progress", "12", after: 60)) == ["tens 10"])
        #expect(heard(h.set(HA.x1c, "_print_progress", "27", after: 60)) == ["agents 25", "tens 20"])
        #expect(heard(h.set(HA.x1c, "_print_progress", "51", after: 60)) == ["agents 50", "half 50", "tens 50"])
        #expect(heard(h.set(HA.x1c, "_print_progress", "52", after: 60)).isEmpty, "once")
        #expect(heard(h.set(HA.x1c, "_print_progress", "95", after: 60)) == ["agents 75", "tens 90"])
    }
}
