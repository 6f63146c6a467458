import PrintBridgeCore
import Testing

/// ha-bambulab's HMS errors entity as pybambu's HMSList writes its attributes.
func hmsAttributes(_ errors: [(code: String, text: String, severity: String)]) -> [String: JSONValue] {
    var attributes: [String: JSONValue] = ["Count": .number(Double(errors.count)), "device_class": "problem"]
    for (index, error) in errors.enumerated() {
        attributes["\(index + 1)-Code"] = .string("HMS_" + error.code)
        attributes["\(index + 1)-Error"] = .string(error.text)
        attributes["\(index + 1)-Wiki"] = .string("https://wiki.bambulab.com/en/x1/troubleshooting/hmscode/" + error.code)
        attributes["\(index + 1)-Severity"] = .string(error.severity)
    }
    return attributes
}

let runoutA1 = (code: "0700_2000_0002_0001", text: "AMS A Slot 1 filament has run out. Please insert a new filament.",
                severity: "serious")
let heatbedSensor = (code: "0300_0100_0001_0007",
                     text: "The heatbed temperature is abnormal; the sensor may have an open circuit.", severity: "fatal")

extension PipelineHarness {
    @discardableResult
    mutating func hms(_ prefix: String, _ errors: [(code: String, text: String, severity: String)], after: Double = 0) -> [Push] {
        set(prefix, "_hms_errors", errors.isEmpty ? "off" : "on", after: after, attributes: hmsAttributes(errors))
    }
}

extension Push {
    var body: String? { json["aps"]?["alert"]?["body"]?.stringValue }
    var title: String? { json["aps"]?["alert"]?["title"]?.stringValue }
    var reason: String? { json["printerState"]?["reason"]?.stringValue }
}

/// "Print Paused", "Print Failed ⚠️" and "Print Cancelled" say why when the
/// printer says why, from the stage, the print error and the HMS errors,
/// which ha-bambulab writes in one pass in no fixed order.
@Suite struct ReasonTests {
    @Test(arguments: [
        ["stage", "status", "hms"], ["hms", "status", "stage"], ["status", "stage", "hms"], ["status", "hms", "stage"],
    ])
    func aRunoutPauseNamesItsSlotWhateverTheOrder(order: [String]) {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
        h.startPrint(HA.x1c)
        h.wait(60)
        var produced: [Push] = []
        for field in order {
            switch field {
            case "stage": produced += h.set(HA.x1c, "_current_stage", "paused_filament_runout", after: 0.003)
            case "status": produced += h.set(HA.x1c, "_print_status", "pause", after: 0.003)
            default: produced += h.hms(HA.x1c, [runoutA1], after: 0.003)
            }
        }
        #expect(produced.events == [.paused, .update], "told as soon as the reason is complete")
        #expect(produced.first?.title == "Print Paused")
        #expect(produced.first?.body == "benchy.3mf paused on x1c_00m09a350100123\nFilament ran out (AMS A, slot 1)")
        #expect(produced.first?.reason == "Filament ran out (AMS A, slot 1)")
        #expect(
            produced.liveActivity.first?.json["aps"]?["content-state"]?.objectValue.map { Set($0.keys) }
                == ["progress", "currentLayer", "totalLayers", "remainingSeconds", "status", "nozzleTemp", "bedTemp"],
            "the Live Activity keeps exactly the app's keys")
        #expect(h.wait(600).isEmpty, "the runout's HMS error was the pause's reason, not an alert of its own")
        h.hms(HA.x1c, [], after: 60)
        #expect(h.set(HA.x1c, "_print_status", "running", after: 1).events == [.resumed, .update])
    }

    @Test func aPauseWithNoReasonIsToldWhenTheWindowEndsWithoutOne() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        #expect(h.set(HA.x1c, "_print_status", "pause", after: 60).isEmpty)
        #expect(h.wait(2.9).isEmpty)
        let paused = h.wait(0.1)
        #expect(paused.events == [.paused])
        #expect(paused.first?.body == "benchy.3mf paused on x1c_00m09a350100123", "the seed's body, unchanged")
        #expect(paused.first?.json["printerState"]?["reason"] == nil)
    }

    @Test func aRunoutWithoutItsHMSErrorStillSaysFilamentRanOut() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_current_stage", "paused_filament_runout", after: 60)
        #expect(h.set(HA.x1c, "_print_status", "pause").isEmpty, "waits for the slot")
        #expect(h.wait(3).first?.reason == "Filament ran out")
    }

    @Test func anExternalSpoolRunsOutToo() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_current_stage", "paused_filament_runout", after: 60)
        h.set(HA.x1c, "_print_status", "pause")
        let paused = h.hms(HA.x1c, [("07FF_2000_0002_0001", "External filament has run out; please load a new filament.", "serious")])
        #expect(paused.first?.reason == "Filament ran out (external spool)")
    }

    @Test func aFailureSaysThePrintErrorsText() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_status", "failed", after: 60)
        h.set(HA.x1c, "_print_error", "on", after: 0.2, attributes: [
            "code": "0300_8003", "error": "Spaghetti defects were detected by the AI Print Monitoring.",
        ])
        let failed = h.wait(10)
        #expect(failed.events == [.failed])
        #expect(failed.first?.title == "Print Failed ⚠️")
        #expect(failed.first?.body == "benchy.3mf failed on x1c_00m09a350100123\nSpaghetti defects were detected by the AI Print Monitoring.")
        #expect(failed.first?.reason == "Spaghetti defects were detected by the AI Print Monitoring.")
    }

    @Test func aCancelDoesNotRepeatTheCancelCodesOwnText() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_error", "on", after: 60, attributes: ["code": "0300_400C", "error": "The task was canceled."])
        let cancelled = h.set(HA.x1c, "_print_status", "failed")
        #expect(cancelled.events == [.cancelled])
        #expect(cancelled.first?.body == "benchy.3mf was cancelled on x1c_00m09a350100123")
    }

    @Test func aFailureFromAnHMSErrorSaysItAndTellsItOnce() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.hms(HA.x1c, [heatbedSensor], after: 60)
        h.set(HA.x1c, "_print_status", "failed", after: 1)
        let failed = h.wait(10)
        #expect(failed.events == [.failed])
        #expect(failed.first?.reason == heatbedSensor.text)
        #expect(h.wait(600).isEmpty, "the error was the failure's reason: no printer-error alert too")
    }

    @Test func eachPhoneReadsTheReasonInItsLanguage() {
        var german = device("german")
        german.language = "de-AT"
        var h = PipelineHarness(devices: [german, device("english")])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_current_stage", "paused_filament_runout", after: 60)
        h.set(HA.x1c, "_print_status", "pause")
        let paused = h.hms(HA.x1c, [runoutA1])
        #expect(paused.first { $0.deviceID == "german" }?.title == "Druck pausiert")
        #expect(paused.first { $0.deviceID == "german" }?.body
            == "benchy.3mf wurde auf x1c_00m09a350100123 pausiert\nDas Filament ist ausgegangen (AMS A, Fach 1)")
        #expect(paused.first { $0.deviceID == "english" }?.reason == "Filament ran out (AMS A, slot 1)")
    }
}

@Suite struct LocalisedPushToStartTests {
    @Test func pushToStartsAlertIsInThePhonesLanguageAndUpdatesCarryNoText() throws {
        var spanish = device(activity: [:], pushToStart: HA.pushToStartToken)
        spanish.language = "es"
        var h = PipelineHarness(devices: [spanish])
        h.startPrint(HA.x1c)
        let start = try #require(h.pushes.first { $0.event == .start })
        #expect(start.json["aps"]?["alert"]?["title"] == "Impresión iniciada")
        #expect(start.json["aps"]?["alert"]?["body"] == "benchy.3mf se ha iniciado en x1c_00m09a350100123")
        #expect(h.pushes.first { $0.event == .started }?.title == "Impresión iniciada")
    }
}

/// A new HMS error is one alert, also outside a print, never repeated for
/// the same error; a cleared error that comes back later is new.
@Suite struct PrinterErrorTests {
    func idlePrinter(_ devices: [Device] = [device()]) -> PipelineHarness {
        var h = PipelineHarness(devices: devices)
        h.set(HA.p1s, "_print_status", "idle")
        h.hms(HA.p1s, [])
        return h
    }

    @Test func aNewErrorWhileIdleIsOneTimeSensitiveAlert() throws {
        var h = idlePrinter()
        #expect(h.hms(HA.p1s, [heatbedSensor], after: 60).isEmpty, "waits the reason window for a pause it may belong to")
        let told = h.wait(3)
        #expect(told.events == [.printerError])
        let alert = try #require(told.first)
        #expect(alert.title == "Printer Error on p1s_01p09c470200456")
        #expect(alert.body == heatbedSensor.text)
        #expect(alert.json["aps"]?["interruption-level"] == "time-sensitive")
        #expect(alert.json["printerState"]?["type"] == "printer_error")
        #expect(alert.collapseID == "p1s_01p09c470200456.error.0300_0100_0001_0007")
        #expect(alert.priority == 10)
        #expect(alert.apnsID != nil)
    }

    @Test func aCommonErrorIsNotTimeSensitive() {
        var h = idlePrinter()
        h.hms(HA.p1s, [("0C00_0300_0003_000B", "Inspecting the first layer: please wait a moment.", "common")], after: 60)
        let told = h.wait(3)
        #expect(told.events == [.printerError])
        #expect(told.first?.json["aps"]?["interruption-level"] == nil)
    }

    @Test func refreshesReconnectsAndAShortClearRepeatNothing() {
        var h = idlePrinter()
        h.hms(HA.p1s, [heatbedSensor], after: 60)
        #expect(h.wait(3).count == 1)
        // The text in another language (HA's language changed): the same error.
        #expect(h.hms(HA.p1s, [(heatbedSensor.code, "Die Heizbetttemperatur ist abnormal.", "fatal")], after: 60).isEmpty)
        // HA restarts: unavailable, then off until the printer's first report, then on.
        #expect(h.set(HA.p1s, "_hms_errors", "unavailable", after: 60).isEmpty)
        h.hms(HA.p1s, [], after: 60)
        h.hms(HA.p1s, [heatbedSensor], after: 5)
        #expect(h.wait(600).isEmpty)
        // A second error joins: only it is new.
        h.hms(HA.p1s, [heatbedSensor, runoutA1], after: 60)
        #expect(h.wait(3).map(\.body) == [runoutA1.text])
    }

    @Test func aClearedErrorThatComesBackLaterIsNew() {
        var h = idlePrinter()
        h.hms(HA.p1s, [heatbedSensor], after: 60)
        #expect(h.wait(3).count == 1)
        h.hms(HA.p1s, [], after: 60)
        h.hms(HA.p1s, [heatbedSensor], after: 61)
        #expect(h.wait(3).events == [.printerError])
    }

    @Test func errorsThereWhenFirstSeenAreABaseline() {
        var h = PipelineHarness(devices: [device()])
        h.set(HA.p1s, "_print_status", "idle")
        h.hms(HA.p1s, [heatbedSensor])
        #expect(h.wait(600).isEmpty)
    }

    @Test func anErrorThatAppearedAfterWatchingBeganIsToldOnFirstSight() {
        var planner = PushPlanner()
        planner.watchingSince = EpochTime(seconds: 500_000)
        var h = PipelineHarness(devices: [device()])
        h.pipeline = PrinterPipeline(planner: planner, devices: [device()], clock: h.clock)
        h.set(HA.p1s, "_print_status", "idle")
        h.hms(HA.p1s, [heatbedSensor])
        #expect(h.wait(3).events == [.printerError])
    }

    @Test func aRestartRemembersWhatWasTold() {
        var h = idlePrinter()
        h.hms(HA.p1s, [heatbedSensor], after: 60)
        #expect(h.wait(3).count == 1)
        let remembered = h.pipeline.planner.printers
        var again = PipelineHarness(devices: [device()], restoring: remembered)
        again.set(HA.p1s, "_print_status", "idle")
        again.hms(HA.p1s, [heatbedSensor])
        #expect(again.wait(600).isEmpty)
    }

    @Test func theSwitchTurnsThemOff() {
        var h = idlePrinter([device(preferences: NotificationPreferences(onPrinterError: false))])
        h.hms(HA.p1s, [heatbedSensor], after: 60)
        #expect(h.wait(600).isEmpty)
    }

    @Test func odditiesInTheAttributesAreSkipped() {
        var h = idlePrinter()
        h.set(HA.p1s, "_hms_errors", "on", after: 60, attributes: ["Count": "two", "1-Code": "HMS_x"])
        h.set(HA.p1s, "_hms_errors", "on", after: 1, attributes: ["Count": 1, "1-Code": "HMS_ab,cd@1", "1-Error": "x"])
        #expect(h.wait(600).isEmpty)
    }
}

/// "Ready to Remove": once per finished print, when the bed has cooled.
@Suite struct BedCooledTests {
    func finishedPrint(_ devices: [Device] = [device()], configuration: PlannerConfiguration = .init()) -> PipelineHarness {
        var h = PipelineHarness(devices: devices, configuration: configuration)
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_bed_temperature", "65", after: 60)
        h.set(HA.x1c, "_print_progress", "100", after: 600)
        #expect(Set(h.set(HA.x1c, "_print_status", "finish").events) == [.complete])
        return h
    }

    @Test func oneAlertWhenTheBedHasCooled() throws {
        var h = finishedPrint()
        #expect(h.set(HA.x1c, "_bed_temperature", "50.2", after: 120).isEmpty)
        #expect(h.set(HA.x1c, "_bed_temperature", "35", after: 300).isEmpty, "below, not at, the threshold")
        let cooled = h.set(HA.x1c, "_bed_temperature", "34.6", after: 90)
        #expect(cooled.events == [.bedCooled])
        let alert = try #require(cooled.first)
        #expect(alert.title == "Ready to Remove")
        #expect(alert.body == "benchy.3mf on x1c_00m09a350100123: the bed has cooled to 34.6\u{00A0}°C in 9 minutes.")
        #expect(alert.json["printerState"]?["type"] == "bed_cooled")
        #expect(h.set(HA.x1c, "_bed_temperature", "30", after: 90).isEmpty, "once per print")
    }

    @Test func aNewPrintFirstMeansNothingToRemove() {
        var h = finishedPrint()
        h.set(HA.x1c, "_print_status", "prepare", after: 120)
        #expect(h.set(HA.x1c, "_bed_temperature", "30", after: 60).isEmpty)
    }

    @Test func aBedAlreadyColdAtTheFinishSaysNothingMore() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_bed_temperature", "28", after: 60)
        h.set(HA.x1c, "_print_status", "finish", after: 600)
        #expect(h.set(HA.x1c, "_bed_temperature", "25", after: 600).isEmpty)
    }

    @Test func theThresholdIsASettingAndThePhoneHasASwitch() {
        var h = finishedPrint(configuration: PlannerConfiguration(bedCooledBelow: 45))
        #expect(h.set(HA.x1c, "_bed_temperature", "44", after: 60).events == [.bedCooled])
        var off = finishedPrint([device(preferences: NotificationPreferences(onBedCooled: false))])
        #expect(off.set(HA.x1c, "_bed_temperature", "20", after: 600).isEmpty)
    }

    @Test func aRestartWhileTheBedCoolsStillTellsIt() {
        let h = finishedPrint()
        var again = PipelineHarness(devices: [device()], restoring: h.pipeline.planner.printers)
        again.set(HA.x1c, "_print_status", "finish")
        again.set(HA.x1c, "_bed_temperature", "60")
        #expect(again.set(HA.x1c, "_bed_temperature", "31", after: 600).events == [.bedCooled])
    }

    @Test func germanAndFrenchWriteNumbersAndPluralsTheirWay() {
        var german = device("de")
        german.language = "de"
        var french = device("fr")
        french.language = "fr-CA"
        var h = finishedPrint([german, french])
        let cooled = h.set(HA.x1c, "_bed_temperature", "34.55", after: 60)
        #expect(cooled.first { $0.deviceID == "de" }?.body
            == "benchy.3mf auf x1c_00m09a350100123: Das Druckbett ist in 1 Minute auf 34,6\u{00A0}°C abgekühlt.")
        #expect(cooled.first { $0.deviceID == "fr" }?.body
            == "benchy.3mf sur x1c_00m09a350100123\u{00A0}: le plateau a refroidi à 34,6\u{00A0}°C en 1 minute.")
    }
}
