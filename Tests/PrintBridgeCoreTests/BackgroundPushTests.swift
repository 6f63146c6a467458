import Testing
@testable import PrintBridgeCore

/// The silent background push when a print ends: one per phone that follows
/// the printer and has `backgroundRefresh` on, at most 3 an hour per phone.
@Suite struct BackgroundPushTests {
    /// One print on `prefix`, started and ended with `status` (`finish`,
    /// `failed`, `cancel`: the cancel code then `failed`, `idle`: abandoned).
    func print(_ h: inout PipelineHarness, _ prefix: String = HA.x1c, ending status: String = "finish", minutes: Double = 10) {
        h.startPrint(prefix)
        h.set(prefix, "_print_progress", "40", after: minutes * 60)
        switch status {
        case "cancel":
            h.set(prefix, "_print_error", "on", after: 1, attributes: ["code": .string("0300_400C")])
            h.set(prefix, "_print_status", "failed", after: 1)
        default:
            h.set(prefix, "_print_status", status, after: 1)
        }
        h.wait(h.pipeline.planner.configuration.flickerWindow)
    }

    @Test func eachEndedPrintIsOneSilentPushPerPhone() throws {
        for (ending, outcome, status) in [
            ("finish", "complete", "complete"), ("failed", "failed", "failed"), ("cancel", "cancelled", "cancelled"),
            ("idle", "abandoned", "idle"),
        ] {
            var h = PipelineHarness(devices: [device("phone"), device("tablet")])
            print(&h, ending: ending)
            #expect(h.prints.map(\.outcome.rawValue) == [outcome])
            #expect(h.background.map(\.deviceID) == ["phone", "tablet"], "\(ending)")
            for push in h.background {
                #expect(push.kind == .background && push.event == .history)
                #expect(push.priority == 5, "Apple: priority 10 is an error for a background push")
                #expect(push.topic == PlannerConfiguration.defaultBundleID)
                #expect(push.tokenKind == .device && push.token == HA.deviceToken)
                #expect(push.collapseID == "\(HA.x1c).history")
                #expect(push.expiration == push.createdAt + 3600)
                #expect(push.apnsID != nil)
                #expect(push.json["printerState"]?["outcome"]?.stringValue == outcome)
                #expect(push.json["printerState"]?["status"]?.stringValue == status)
            }
            #expect(h.limited.isEmpty)
            // No alert, Live Activity or anything else changed by it.
            #expect(!h.pushes.contains { $0.kind == .background })
        }
    }

    @Test func thePayloadIsContentAvailableAndTheRecordsKeys() throws {
        var h = PipelineHarness(devices: [device()])
        print(&h)
        let push = try #require(h.background.first)
        let record = try #require(h.prints.first)
        #expect(push.payloadText == """
            {"aps":{"content-available":1},"printerState":{"outcome":"complete","prefix":"\(HA.x1c)",\
            "printId":"\(record.printID)","status":"complete","type":"print_history"}}
            """)
        #expect(push.createdAt == record.endedAt)
    }

    @Test func theSwitchAndTheFollowedPrintersDecide() {
        var h = PipelineHarness(devices: [
            device("off", preferences: NotificationPreferences(backgroundRefresh: false)),
            // It shows nothing: the master switch for notifications is not its.
            device("silenced", preferences: NotificationPreferences(notificationsEnabled: false)),
            device("other", printers: [HA.p1s]),
            .activity(token: HA.activityToken, printerPrefix: HA.x1c),
        ])
        print(&h)
        #expect(h.prints.count == 1)
        #expect(h.background.map(\.deviceID) == ["silenced"])
        #expect(!h.pushes.alerts.contains { $0.deviceID == "silenced" }, "the silenced phone hears no alert")
        #expect(h.pushes.alerts.contains { $0.deviceID == "off" && $0.event == .complete }, "the switch is for the silent push only")
    }

    @Test func atMostThreeAnHourPerPhoneRolling() {
        var h = PipelineHarness(devices: [device("phone"), device("p1s-only", printers: [HA.p1s])])
        let first = h.clock.now()
        for _ in 0..<3 { print(&h, HA.x1c, minutes: 2) }
        #expect(h.background.count == 3)
        // The fourth print within the hour: the phone has had its three.
        print(&h, HA.x1c, minutes: 2)
        #expect(h.prints.count == 4)
        #expect(h.background.count == 3)
        #expect(h.limited.map(\.deviceID) == ["phone"])
        #expect(h.limited.first?.event == .history)
        // Another phone's allowance is its own.
        print(&h, HA.p1s, minutes: 2)
        #expect(h.background.map(\.deviceID).filter { $0 == "p1s-only" }.count == 1)
        #expect(h.limited.count == 2, "the phone following every printer is still over")
        // An hour after the first went out, one more fits.
        let firstSent = h.background[0].createdAt
        #expect(firstSent > first)
        h.wait(firstSent + 3600 - h.clock.now() + 1)
        print(&h, HA.x1c, minutes: 1)
        #expect(h.background.last?.deviceID == "phone")
        #expect(h.background.filter { $0.deviceID == "phone" }.count == 4)
    }

    @Test func theAllowanceIsTheConfigurations() {
        var configuration = PlannerConfiguration()
        configuration.backgroundLimit = 1
        var h = PipelineHarness(devices: [device()], configuration: configuration)
        print(&h)
        print(&h)
        #expect(h.background.count == 1 && h.limited.count == 1)
    }

    @Test func preferencesNameTheSwitch() {
        #expect(NotificationPreferences.switches.contains { $0.name == "backgroundRefresh" && $0.column == "background_refresh" })
        #expect(NotificationPreferences().wants(.history))
        #expect(!NotificationPreferences(backgroundRefresh: false).wants(.history))
        #expect(NotificationPreferences(notificationsEnabled: false).wants(.history))
    }
}
