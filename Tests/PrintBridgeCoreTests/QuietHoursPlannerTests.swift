import Testing
@testable import PrintBridgeCore

/// A night with quiet hours (issue 53): what the phone chose is held and
/// told once when they end, in its language, as what happened; Live
/// Activities go on; the urgent break through when the phone lets them.
@Suite struct QuietHoursPlannerTests {
    /// The harness's clock starts at 1970-01-12T13:46:40Z: quiet 13:00–16:00 UTC.
    static let quiet = QuietHours(start: 13 * 60, end: 16 * 60, timeZone: "UTC")
    /// 16:00 UTC that day.
    static let end = EpochTime(seconds: 1_008_000)

    func sleeper(breakthrough: Bool = true) -> Device {
        var phone = Device(
            id: "sleeper", apnsToken: String(repeating: "a1", count: 32),
            preferences: .init(schedule: AlertSchedule(quietHours: QuietHours(
                start: Self.quiet.start, end: Self.quiet.end, timeZone: "UTC", breakthrough: breakthrough))),
            activityTokens: [HA.x1c: HA.activityToken])
        phone.language = "de"
        return phone
    }

    let awake = Device(id: "awake", apnsToken: String(repeating: "b2", count: 32))

    @Test func theNightIsHeldAndToldOnceWhenTheQuietHoursEnd() throws {
        var h = PipelineHarness(devices: [sleeper(), awake])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "30", after: 600)
        h.set(HA.x1c, "_current_stage", "paused_filament_runout", after: 600)
        h.set(HA.x1c, "_print_status", "pause", after: 0.002)
        h.wait(10)
        h.set(HA.x1c, "_current_stage", "printing", after: 1200)
        h.set(HA.x1c, "_print_status", "running", after: 0.002)
        h.set(HA.x1c, "_print_progress", "60", after: 600)
        h.set(HA.x1c, "_print_progress", "100", after: 900)
        h.set(HA.x1c, "_print_status", "finish", after: 1)
        h.wait(60)
        let night = h.pushes
        #expect(night.alerts.filter { $0.deviceID == "sleeper" }.isEmpty, "nothing shown in the quiet hours")
        #expect(night.alerts.filter { $0.deviceID == "awake" }.map(\.event)
            == [.started, .milestone, .paused, .resumed, .milestone, .milestone, .complete], "the other phone as before")
        #expect(night.liveActivity.count > 3, "the Live Activity goes on")
        #expect(night.liveActivity.allSatisfy { $0.json["aps"]?["alert"] == nil },
                "silently: the pause held for the summary does not light the activity either")
        #expect(h.pipeline.planner.heldAlerts.map(\.event) == [.started, .milestone, .paused, .resumed, .milestone, .milestone, .complete])
        #expect(h.pipeline.nextDue == Self.end)

        let morning = h.wait(Self.end.seconds - h.clock.now().seconds).alerts
        let summary = try #require(morning.first)
        #expect(morning.count == 1 && summary.deviceID == "sleeper" && summary.event == .summary)
        #expect(summary.collapseID == QuietSummary.thread && summary.createdAt == Self.end)
        let alert = summary.json["aps"]?["alert"]
        #expect(alert?["title"]?.stringValue == "Während deiner Ruhezeit")
        let lines = alert?["body"]?.stringValue?.split(separator: "\n").map(String.init) ?? []
        #expect(lines.count == 3, "started, the pause with its resume, the finish: milestones of a finished print go")
        #expect(lines.first == "13:46 \(HA.x1c): benchy.3mf gestartet")
        #expect(lines[1].hasPrefix("14:06 \(HA.x1c): benchy.3mf pausiert — Das Filament ist ausgegangen"))
        #expect(lines[1].hasSuffix("; fortgesetzt 14:26"), "the pause is told as what happened")
        #expect(lines[2].hasSuffix(": benchy.3mf fertig"))
        #expect(h.pipeline.planner.heldAlerts.isEmpty && h.wait(86_400).alerts.isEmpty, "once")
    }

    @Test func aFailureBreaksThroughUnlessThePhoneSaysNot() {
        for breakthrough in [true, false] {
            var h = PipelineHarness(devices: [sleeper(breakthrough: breakthrough)])
            h.startPrint(HA.x1c)
            h.set(HA.x1c, "_print_status", "failed", after: 600)
            let told = h.wait(30).alerts
            #expect(told.map(\.event) == (breakthrough ? [.failed] : []))
            #expect(h.pipeline.planner.heldAlerts.map(\.event) == (breakthrough ? [.started] : [.started, .failed]))
        }
    }

    /// The quiet hours come before an alert inside the Live Activity: a held
    /// failure lights nothing; one that breaks through lights the activity
    /// and its ordinary alert goes quietly, as outside the quiet hours.
    @Test func aFailureThatBreaksThroughLightsTheActivityAndAHeldOneDoesNot() throws {
        for breakthrough in [true, false] {
            var h = PipelineHarness(devices: [sleeper(breakthrough: breakthrough)])
            h.startPrint(HA.x1c)
            let failed = h.set(HA.x1c, "_print_status", "failed", after: 600) + h.wait(30)
            let lit = failed.liveActivity.filter { $0.json["aps"]?["alert"] != nil }
            let alerts = failed.alerts.filter { $0.event == .failed }
            if breakthrough {
                let update = try #require(lit.first)
                #expect(lit.count == 1 && update.json["aps"]?["alert"]?["sound"] == .string("default"))
                #expect(alerts.count == 1 && alerts[0].json["aps"]?["interruption-level"] == .string("passive"))
            } else {
                #expect(lit.isEmpty, "held: the activity ends without a sound")
                #expect(alerts.isEmpty)
                #expect(failed.liveActivity.map(\.event) == [.end], "the end as always")
            }
        }
    }

    @Test func outsideTheQuietHoursNothingIsHeld() {
        var phone = sleeper()
        phone.preferences.schedule.quietHours = QuietHours(start: 1 * 60, end: 6 * 60, timeZone: "UTC")
        var h = PipelineHarness(devices: [phone])
        h.startPrint(HA.x1c)
        #expect(h.pushes.alerts.map(\.event) == [.started] && h.pipeline.planner.heldAlerts.isEmpty)
    }

    @Test func aPhoneThatMovedItsQuietHoursIsToldAtTheirNewEnd() throws {
        var h = PipelineHarness(devices: [sleeper()])
        h.startPrint(HA.x1c)
        var later = sleeper()
        later.preferences.schedule.quietHours = QuietHours(start: 13 * 60, end: 17 * 60, timeZone: "UTC")
        h.pipeline.devices = [later]
        #expect(h.wait(Self.end.seconds - h.clock.now().seconds).alerts.isEmpty)
        #expect(h.pipeline.nextDue == Self.end + 3600)
        #expect(h.wait(3600).alerts.map(\.event) == [.summary])
    }

    @Test func aLongNightIsCutToFitWithHowManyMore() throws {
        let catalog = Catalog.english
        let alerts = (0..<200).map { index in
            HeldAlert(
                deviceID: "d", printer: "x1c", printerName: "X1C", event: .printerError,
                reason: String(repeating: "A long printer error text. ", count: 3) + "\(index)", timeZone: "UTC",
                at: EpochTime(seconds: Double(index)), releaseAt: Self.end)
        }
        let phone = Device(id: "d", apnsToken: String(repeating: "a1", count: 32))
        let push = try #require(QuietSummary.push(to: phone, alerts: alerts, configuration: .init(), now: Self.end)).get()
        #expect(push.payload.count <= PayloadLimits.maximumPayloadBytes)
        let body = push.json["aps"]?["alert"]?["body"]?.stringValue ?? ""
        #expect(body.hasPrefix("00:00 X1C: printer error — A long printer error text."))
        #expect(body.split(separator: "\n").last?.hasPrefix("… and ") == true && body.hasSuffix(" more"))
        #expect(QuietSummary.lines(alerts, catalog: catalog).count == 200)
    }

    /// One line too long alone (an automation's long words, held) is
    /// shortened: the summary is sent, the night not lost to it.
    @Test func aLineTooLongAloneIsShortenedNotLost() throws {
        let long = HeldAlert(
            deviceID: "d", printer: "x1c", printerName: "X1C", event: .notify,
            reason: String(repeating: "煙", count: 2_000), timeZone: "UTC", at: EpochTime(seconds: 0), releaseAt: Self.end)
        let finished = HeldAlert(
            deviceID: "d", printer: "x1c", printerName: "X1C", event: .complete, fileName: "benchy.3mf",
            timeZone: "UTC", at: EpochTime(seconds: 60), releaseAt: Self.end)
        let phone = Device(id: "d", apnsToken: String(repeating: "a1", count: 32))
        let push = try #require(QuietSummary.push(to: phone, alerts: [long, finished], configuration: .init(), now: Self.end)).get()
        #expect(push.payload.count <= PayloadLimits.maximumPayloadBytes)
        let body = push.json["aps"]?["alert"]?["body"]?.stringValue ?? ""
        #expect(body.hasPrefix("00:00 X1C: ") && body.contains("煙…"), "\(body.prefix(40))")
        #expect(body.hasSuffix("… and 1 more"), "the rest counted")
    }
}
