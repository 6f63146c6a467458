import Testing
@testable import PrintBridgeCore

/// "First Layer Done" (issue 53): once a print, when the layer the printer
/// reports reaches 2, with a picture, to the phones that turned it on.
@Suite struct FirstLayerTests {
    let phones = [
        Device(id: "on", apnsToken: String(repeating: "a1", count: 32), preferences: .init(onFirstLayer: true)),
        Device(id: "off", apnsToken: String(repeating: "b2", count: 32)),
    ]

    @Test func theFirstLayerIsToldOnceWithAPictureToThePhonesThatWantIt() throws {
        var h = PipelineHarness(devices: phones)
        h.startPrint(HA.x1c)
        #expect(h.set(HA.x1c, "_current_layer", "0", after: 60).alerts.isEmpty, "preparing: layer 0")
        #expect(h.set(HA.x1c, "_current_layer", "1", after: 60).alerts.isEmpty)
        let told = h.set(HA.x1c, "_current_layer", "2", after: 240).alerts
        let alert = try #require(told.first)
        #expect(told.count == 1 && alert.deviceID == "on" && alert.event == .firstLayer)
        #expect(alert.wantsSnapshot, "the picture is the point")
        #expect(alert.json["aps"]?["alert"]?["title"]?.stringValue == "First Layer Done")
        #expect(alert.json["aps"]?["category"]?.stringValue == "PRINT_RUNNING", "Pause and Stop at hand")
        #expect(alert.json["printerState"]?["type"]?.stringValue == "first_layer_done")
        #expect(h.set(HA.x1c, "_current_layer", "3", after: 60).alerts.isEmpty, "once")
    }

    @Test func aPrintFirstSeenPastItsFirstLayerOrALayerBackAfterAnOutageIsNotTold() {
        var h = PipelineHarness(devices: phones)
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_current_layer", "57", after: 60)
        #expect(h.set(HA.x1c, "_current_layer", "unavailable", after: 60).alerts.isEmpty)
        #expect(h.set(HA.x1c, "_current_layer", "58", after: 60).alerts.isEmpty)
    }

    @Test func theNextPrintsFirstLayerIsToldAgain() {
        var h = PipelineHarness(devices: phones)
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_current_layer", "1", after: 60)
        h.set(HA.x1c, "_current_layer", "2", after: 60)
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        h.wait(120)
        h.startPrint(HA.x1c, file: "gear.3mf")
        h.set(HA.x1c, "_current_layer", "1", after: 60)
        let told = h.set(HA.x1c, "_current_layer", "2", after: 60).alerts
        #expect(told.map(\.event) == [.firstLayer])
        #expect(told.first?.json["printerState"]?["filename"]?.stringValue == "gear.3mf")
    }

    /// A first layer quicker than the start's settling (the ha-bambulab
    /// simulator's: layer 1, then 25, two seconds apart): told with the
    /// start, after it, once; the previous print's last layer is not.
    @Test func aFirstLayerDoneWhileTheStartSettledIsToldWithTheStart() throws {
        var h = PipelineHarness(devices: phones)
        h.set(HA.x1c, "_print_status", "idle")
        h.set(HA.x1c, "_current_layer", "250")
        h.set(HA.x1c, "_task_name", "benchy.3mf")
        h.set(HA.x1c, "_print_status", "running", after: 1)
        h.set(HA.x1c, "_current_layer", "1", after: 1)
        h.set(HA.x1c, "_current_layer", "25", after: 2)
        let told = h.wait(h.pipeline.planner.configuration.startSettle).alerts.filter { $0.deviceID == "on" }
        #expect(told.map(\.event) == [.started, .firstLayer])
        #expect(h.set(HA.x1c, "_current_layer", "26", after: 60).alerts.isEmpty, "once")

        var stale = PipelineHarness(devices: phones)
        stale.set(HA.x1c, "_print_status", "idle")
        stale.set(HA.x1c, "_current_layer", "250")
        stale.set(HA.x1c, "_print_status", "running", after: 1)
        #expect(stale.wait(stale.pipeline.planner.configuration.startSettle).alerts.map(\.event) == [.started, .started],
                "the last print's layer 250 is not this one's first layer")
    }

    /// A layer that reads 0 mid-print (ha-bambulab reloaded, the printer
    /// reconnected) and then its real value again is no second first layer.
    @Test func aLayerBackToZeroMidPrintIsNoSecondFirstLayer() {
        var h = PipelineHarness(devices: phones)
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_current_layer", "1", after: 60)
        #expect(h.set(HA.x1c, "_current_layer", "2", after: 60).alerts.map(\.event) == [.firstLayer])
        h.set(HA.x1c, "_current_layer", "0", after: 600)
        #expect(h.set(HA.x1c, "_current_layer", "150", after: 5).alerts.isEmpty, "once a print")
    }
}
