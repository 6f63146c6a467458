import Testing
@testable import PrintBridgeCore

/// Alerts from Home Assistant's automations (issue 53): a `printbridge_notify`
/// bus event goes to the phones following its printer, its words as given,
/// at most five a printer in ten minutes; what is wrong is said, not sent.
@Suite struct NotifyTests {
    let phones = [
        Device(id: "x1c-phone", apnsToken: String(repeating: "a1", count: 32), printerPrefixes: [HA.x1c]),
        Device(id: "p1s-phone", apnsToken: String(repeating: "b2", count: 32), printerPrefixes: [HA.p1s]),
        Device(id: "muted", apnsToken: String(repeating: "c3", count: 32), preferences: .init(notificationsEnabled: false)),
    ]

    func fire(_ h: inout PipelineHarness, _ data: [String: JSONValue]) -> PrinterPipeline.Output {
        var output = PrinterPipeline.Output()
        let message = HAMessage.event(id: 9, HAEvent(
            eventType: "printbridge_notify", timeFired: h.clock.now(), stateChange: nil, data: data))
        for input in h.reader.inputs(from: message) {
            let produced = h.pipeline.handle(input)
            output.pushes += produced.pushes
            output.failures += produced.failures
        }
        return output
    }

    @Test func anAutomationsAlertReachesThePhonesFollowingThePrinter() throws {
        var h = PipelineHarness(devices: phones)
        h.set(HA.x1c, "_print_status", "idle")
        h.set(HA.p1s, "_print_status", "idle")
        let output = fire(&h, [
            "printer": .string(HA.x1c), "title": .string("Smoke by the printer"),
            "message": .string("The workshop's smoke sensor went off."), "level": .string("time-sensitive"),
        ])
        let alert = try #require(output.pushes.first)
        #expect(output.pushes.count == 1 && alert.deviceID == "x1c-phone" && alert.event == .notify)
        #expect(alert.json["aps"]?["alert"]?["title"]?.stringValue == "Smoke by the printer")
        #expect(alert.json["aps"]?["alert"]?["body"]?.stringValue == "The workshop's smoke sensor went off.")
        #expect(alert.json["aps"]?["interruption-level"]?.stringValue == "time-sensitive")
        #expect(alert.json["printerState"]?["type"]?.stringValue == "ha_notify")
        #expect(h.reader.matcher.busEventTypes.contains("printbridge_notify"), "the session subscribes to it")
    }

    @Test func fiveAPrinterInTenMinutesThenDroppedAndSaid() {
        var h = PipelineHarness(devices: phones)
        h.set(HA.x1c, "_print_status", "idle")
        var sent = 0
        var dropped: [String] = []
        for _ in 0..<7 {
            let output = fire(&h, ["printer": .string(HA.x1c), "message": .string("Door open")])
            sent += output.pushes.count
            dropped += output.failures
            h.wait(10)
        }
        #expect(sent == 5 && dropped.count == 2 && dropped[0].contains("dropped"))
        h.wait(600)
        #expect(fire(&h, ["printer": .string(HA.x1c), "message": .string("Door open")]).pushes.count == 1)
    }

    @Test func whatIsWrongIsSaidNotSent() {
        var h = PipelineHarness(devices: phones)
        h.set(HA.x1c, "_print_status", "idle")
        #expect(fire(&h, ["message": .string("m")]).failures == ["printbridge_notify needs `printer` (the printer's prefix or name)"])
        #expect(fire(&h, ["printer": .string("nope"), "message": .string("m")]).failures
            == ["printbridge_notify names no printer the agent knows: nope"])
        #expect(fire(&h, ["printer": .string(HA.x1c), "message": .string("m"), "level": .string("loud")]).failures.count == 1)
        #expect(fire(&h, ["printer": .string(HA.x1c)]).pushes.isEmpty)
    }

    /// The limit is in bytes, as APNs counts: the longest text allowed, in
    /// any script, makes an alert that is sent; a byte more is said, not
    /// sent; a printer that is not one line is refused before it reaches the log.
    @Test func theLongestWordsInAnyScriptFitAndOneByteMoreIsRefused() throws {
        var h = PipelineHarness(devices: phones)
        h.set(HA.x1c, "_print_status", "idle")
        for letter in ["ж", "煙", "\"", "a"] {
            let words = String(repeating: letter, count: NotifyRequest.maximumText / NotifyRequest.jsonBytes(letter))
            let output = fire(&h, ["printer": .string(HA.x1c), "title": .string(words), "message": .string(words)])
            #expect(output.failures.isEmpty && output.pushes.count == 1, "\(letter): \(output.failures)")
            #expect(try #require(output.pushes.first).payload.count <= PayloadLimits.maximumPayloadBytes)
            h.wait(PushPlanner.notifyWindow)
        }
        let tooLong = String(repeating: "ж", count: NotifyRequest.maximumText / 2) + "a"
        #expect(fire(&h, ["printer": .string(HA.x1c), "message": .string(tooLong)]).failures
            == ["printbridge_notify for \(HA.x1c): title and message must be at most 1000 bytes each (UTF-8, as JSON)"])
        let twoLines = fire(&h, ["printer": .string("x1c\nforged log line"), "message": .string("m")])
        #expect(twoLines.failures == ["printbridge_notify's `printer` must be one line of at most 128 bytes"])
    }
}
