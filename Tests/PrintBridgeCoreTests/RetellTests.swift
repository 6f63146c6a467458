import Testing
@testable import PrintBridgeCore

/// A failure nobody saw (issue 53): told again once, time-sensitive, under
/// the same collapse id, after the phone's delay; not when it was opened,
/// not once the printer moved on, not for a phone that said never.
@Suite struct RetellTests {
    func phone(_ id: String, minutes: Int = 15) -> Device {
        Device(
            id: id, apnsToken: String(repeating: id == "a" ? "a1" : "b2", count: 32),
            preferences: .init(schedule: AlertSchedule(retellAfterMinutes: minutes)))
    }

    func failedPrint(_ devices: [Device]) -> (PipelineHarness, [Push]) {
        var h = PipelineHarness(devices: devices)
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_status", "failed", after: 600)
        let told = h.wait(30).alerts.filter { $0.event == .failed }
        return (h, told)
    }

    @Test func anUnopenedFailureIsToldAgainOnceTimeSensitive() throws {
        var (h, told) = failedPrint([phone("a"), phone("b", minutes: 0)])
        let first = try #require(told.first { $0.deviceID == "a" })
        #expect(told.count == 2 && first.json["aps"]?["interruption-level"] == nil)
        #expect(h.wait(14 * 60).alerts.isEmpty)
        let again = h.wait(60).alerts
        let retold = try #require(again.first)
        #expect(again.count == 1 && retold.deviceID == "a", "b said never")
        #expect(retold.collapseID == first.collapseID && retold.apnsID != first.apnsID)
        #expect(retold.json["aps"]?["interruption-level"]?.stringValue == "time-sensitive")
        #expect(retold.json["aps"]?["alert"] == first.json["aps"]?["alert"], "the same words")
        #expect(retold.createdAt == first.createdAt + 15 * 60)
        #expect(h.wait(86_400).alerts.isEmpty, "once")
    }

    /// A failure that lit the phone's Live Activity went quietly (passive, no
    /// sound: the activity told it); unseen, it is told again audibly.
    @Test func aFailureToldByTheLiveActivityIsToldAgainWithASound() throws {
        var lit = phone("a")
        lit.activityTokens = [HA.x1c: String(repeating: "ac", count: 40)]
        var (h, told) = failedPrint([lit])
        let first = try #require(told.first)
        #expect(first.json["aps"]?["interruption-level"] == .string("passive") && first.json["aps"]?["sound"] == nil)
        let retold = try #require(h.wait(15 * 60).alerts.first)
        #expect(retold.json["aps"]?["interruption-level"] == .string("time-sensitive"))
        #expect(retold.json["aps"]?["sound"] == .string("default"), "heard this time")
    }

    @Test func anOpenedFailureIsNotToldAgain() throws {
        var (h, told) = failedPrint([phone("a")])
        let first = try #require(told.first)
        #expect(h.pipeline.opened(apnsID: try #require(first.apnsID)))
        #expect(h.wait(3600).alerts.isEmpty)
    }

    @Test func nothingIsToldAgainOnceAnotherPrintRuns() {
        var (h, _) = failedPrint([phone("a")])
        h.set(HA.x1c, "_print_status", "running", after: 300)
        #expect(h.wait(3600).alerts.allSatisfy { $0.event != .failed })
    }

    /// The phone's settings as they are at the re-telling count.
    @Test func aPhoneThatSaidNeverMeanwhileIsNotToldAgain() {
        var (h, _) = failedPrint([phone("a")])
        h.pipeline.devices = [phone("a", minutes: 0)]
        #expect(h.wait(3600).alerts.isEmpty)
        var off = phone("a")
        off.preferences.onFailed = false
        var (h2, _) = failedPrint([phone("a")])
        h2.pipeline.devices = [off]
        #expect(h2.wait(3600).alerts.isEmpty, "the failure alert switched off")
    }

    /// A reminder due in the phone's quiet hours (the urgent not let through)
    /// waits for their end; once it is let through it comes at once.
    @Test func aReminderDueInTheQuietHoursWaitsForTheirEnd() throws {
        for breakthrough in [false, true] {
            var (h, told) = failedPrint([phone("a")])
            let first = try #require(told.first)
            var sleeping = phone("a")
            // The harness's clock is past 13:56 UTC by now: quiet from the next minute to 16:00.
            sleeping.preferences.schedule.quietHours = QuietHours(
                start: 14 * 60, end: 16 * 60, timeZone: "UTC", breakthrough: breakthrough)
            h.pipeline.devices = [sleeping]
            let due = first.createdAt + 15 * 60
            let atDue = h.wait(due.seconds - h.clock.now().seconds).alerts
            if breakthrough {
                #expect(atDue.map(\.event) == [.failed], "let through")
            } else {
                #expect(atDue.isEmpty, "held at its due time")
                let end = EpochTime(seconds: 1_008_000)
                let morning = h.wait(end.seconds - h.clock.now().seconds).alerts
                #expect(morning.map(\.event) == [.failed] && morning.first?.createdAt == end, "told at the quiet hours' end")
                #expect(morning.first?.json["aps"]?["interruption-level"] == .string("time-sensitive"))
            }
            #expect(h.wait(86_400).alerts.isEmpty, "once")
        }
    }

    /// A printer error's reminder due in quiet hours that let the urgent
    /// through goes at once when the error is serious (as its first telling
    /// would have), and waits for their end when it is common.
    @Test func aSeriousPrinterErrorsReminderBreaksThroughQuietHoursACommonOneWaits() throws {
        for severity in ["serious", "common"] {
            var h = PipelineHarness(devices: [phone("a")])
            h.set(HA.p1s, "_print_status", "idle")
            h.hms(HA.p1s, [])
            h.hms(HA.p1s, [(heatbedSensor.code, heatbedSensor.text, severity)], after: 60)
            let first = try #require(h.wait(3).alerts.first { $0.event == .printerError })
            let minute = Int(first.createdAt.seconds / 60) % (24 * 60)
            var sleeping = phone("a")
            sleeping.preferences.schedule.quietHours = QuietHours(
                start: (minute + 1) % (24 * 60), end: (minute + 120) % (24 * 60), timeZone: "UTC", breakthrough: true)
            h.pipeline.devices = [sleeping]
            let due = first.createdAt + 15 * 60
            let atDue = h.wait(due.seconds - h.clock.now().seconds).alerts.filter { $0.event == .printerError }
            if severity == "serious" {
                #expect(atDue.count == 1 && atDue.first?.createdAt == due, "let through at its due time")
            } else {
                #expect(atDue.isEmpty, "held at its due time")
                let later = h.wait(2 * 3600).alerts.filter { $0.event == .printerError }
                #expect(later.count == 1 && later.first?.collapseID == first.collapseID, "told at the quiet hours' end")
            }
        }
    }
}
