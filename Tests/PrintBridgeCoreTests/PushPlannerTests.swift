import Testing
@testable import PrintBridgeCore

@Suite struct StatusAlertTests {
    @Test func aWholePrintAlertsStartMilestonesAndCompleteOnce() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        for percent in stride(from: 5, through: 100, by: 5) {
            h.set(HA.x1c, "_print_progress", String(percent), after: 60)
        }
        h.set(HA.x1c, "_print_status", "finish", after: 1)
        #expect(h.pushes.alerts.events == [.started, .milestone, .milestone, .milestone, .complete])
        #expect(h.pushes.alerts.map { $0.json["aps"]?["alert"]?["title"]?.stringValue } ==
                ["Print Started", "25% Complete", "50% Complete", "75% Complete", "Print Complete! 🎉"])
    }

    @Test func firstSightIsABaselineWithoutAlerts() {
        var h = PipelineHarness(devices: [device()])
        #expect(h.set(HA.x1c, "_print_status", "running").isEmpty)
        #expect(h.set(HA.p1s, "_print_status", "finish").isEmpty)
        #expect(h.set(HA.x1c, "_print_progress", "60", after: 10).isEmpty)
    }

    @Test func unavailableAndBackNeverRestartsAPrint() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        for junk in ["unavailable", "unknown", "offline"] {
            #expect(h.set(HA.x1c, "_print_status", junk, after: 5).isEmpty)
            #expect(h.set(HA.x1c, "_print_status", "running", after: 5).isEmpty)
        }
        #expect(h.pushes.alerts.events == [.started])
    }

    @Test func pauseAndResume() {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
        h.startPrint(HA.x1c)
        // ha-bambulab writes the stage in the same pass: the reason is in, the pause is told at once.
        h.set(HA.x1c, "_current_stage", "paused_user", after: 60)
        let paused = h.set(HA.x1c, "_print_status", "pause")
        #expect(paused.events == [.paused, .update])
        #expect(paused.first?.json["aps"]?["alert"]?["body"] == .string("benchy.3mf paused on x1c_00m09a350100123\nPaused by the user"))
        #expect(paused.liveActivity.first?.priority == 10)
        #expect(paused.liveActivity.first?.json["aps"]?["content-state"]?["status"] == .string("paused"))
        let resumed = h.set(HA.x1c, "_print_status", "running", after: 600)
        #expect(resumed.events == [.resumed, .update], "resume is not a new start, and the paused alert is replaced")
        #expect(resumed.liveActivity.first?.priority == 10)
        #expect(resumed.liveActivity.first?.json["aps"]?["content-state"]?["status"] == .string("running"))
    }

    @Test func failedAndCancelled() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        // A failure waits for a cancel code that may follow (cancelWindow).
        #expect(h.set(HA.x1c, "_print_status", "failed", after: 60).isEmpty)
        #expect(h.wait(9).isEmpty)
        #expect(h.wait(1).events == [.failed])
        h.startPrint(HA.p1s)
        h.set(HA.p1s, "_print_error", "on", after: 1, attributes: ["code": .string("0300_400C")])
        let cancelled = h.set(HA.p1s, "_print_status", "failed", after: 1)
        #expect(cancelled.events == [.cancelled])
        #expect(cancelled.first?.json["aps"]?["alert"]?["title"] == .string("Print Cancelled"))
        #expect(cancelled.first?.json["printerState"]?["type"] == .string("print_cancelled"))
    }

    @Test func pausedPrintsCanEndToo() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_status", "pause", after: 10)
        #expect(h.wait(3).events == [.paused], "no reason came: told when the reason window ends")
        #expect(h.set(HA.x1c, "_print_status", "cancelled", after: 10).events == [.cancelled])
    }

    @Test func preferencesFilterRecipients() {
        let quiet = NotificationPreferences(onStart: false, onMilestone: false)
        let off = NotificationPreferences(notificationsEnabled: false)
        var h = PipelineHarness(devices: [
            device("all"), device("quiet", preferences: quiet), device("off", preferences: off),
            device("other-printer", printers: [HA.p1s]),
        ])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "30", after: 60)
        h.set(HA.x1c, "_print_status", "finish", after: 60)
        let byDevice = Dictionary(grouping: h.pushes.alerts, by: \.deviceID).mapValues(\.events)
        #expect(byDevice["all"] == [.started, .milestone, .complete])
        #expect(byDevice["quiet"] == [.complete])
        #expect(byDevice["off"] == nil)
        #expect(byDevice["other-printer"] == nil)
    }

    @Test func printersAreIndependent() {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken, HA.p1s: HA.activityToken + "00"])])
        h.startPrint(HA.x1c)
        h.startPrint(HA.p1s)
        h.set(HA.x1c, "_print_progress", "30", after: 60)
        h.set(HA.p1s, "_print_status", "failed", after: 1)
        h.set(HA.x1c, "_print_progress", "55", after: 60)
        let x1c = h.pushes.filter { $0.printerPrefix == HA.x1c }.alerts.events
        let p1s = h.pushes.filter { $0.printerPrefix == HA.p1s }.alerts.events
        #expect(x1c == [.started, .milestone, .milestone])
        #expect(p1s == [.started, .failed])
        #expect(h.pushes.filter { $0.printerPrefix == HA.p1s && $0.event == .end }.count == 1)
        #expect(h.pipeline.devices[0].activityTokens[HA.x1c] != nil, "the X1C activity lives on")
    }
}

@Suite struct MilestoneTests {
    @Test func aJumpSendsOnlyTheHighestCrossed() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "20", after: 60)
        let jump = h.set(HA.x1c, "_print_progress", "80", after: 60)
        #expect(jump.alerts.map { $0.json["aps"]?["alert"]?["title"]?.stringValue } == ["75% Complete"])
        #expect(jump.alerts.first?.json["printerState"]?["progress"] == .number(75))
        // 25 and 50 were crossed in that jump: they never come later.
        h.set(HA.x1c, "_print_progress", "40", after: 60)
        #expect(h.set(HA.x1c, "_print_progress", "60", after: 60).alerts.isEmpty)
    }

    @Test func eachMilestoneOncePerPrintAndResetOnANewPrint() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        #expect(h.set(HA.x1c, "_print_progress", "26", after: 60).alerts.count == 1)
        h.set(HA.x1c, "_print_progress", "24", after: 60)
        #expect(h.set(HA.x1c, "_print_progress", "27", after: 60).alerts.isEmpty)
        h.set(HA.x1c, "_print_status", "finish", after: 60)
        h.set(HA.x1c, "_print_status", "running", after: 600)
        h.set(HA.x1c, "_print_progress", "0", after: 1)
        #expect(h.wait(5).alerts.events == [.started])
        #expect(h.set(HA.x1c, "_print_progress", "26", after: 60).alerts.events == [.milestone])
    }

    @Test func aPrintFirstSeenMidwayCrossesNothingBehindIt() {
        var h = PipelineHarness(devices: [device()])
        h.set(HA.x1c, "_print_progress", "60")
        h.set(HA.x1c, "_print_status", "running")
        #expect(h.set(HA.x1c, "_print_progress", "62", after: 60).alerts.isEmpty)
        #expect(h.set(HA.x1c, "_print_progress", "40", after: 60).alerts.isEmpty)
        #expect(h.set(HA.x1c, "_print_progress", "55", after: 60).alerts.isEmpty, "50 was behind the baseline")
        #expect(h.set(HA.x1c, "_print_progress", "76", after: 60).alerts.events == [.milestone])
    }

    @Test func aBaselineWithoutProgressTakesTheFirstReading() {
        var h = PipelineHarness(devices: [device()])
        h.set(HA.x1c, "_print_status", "running")
        #expect(h.set(HA.x1c, "_print_progress", "55", after: 5).alerts.isEmpty)
        #expect(h.set(HA.x1c, "_print_progress", "80", after: 60).alerts.events == [.milestone])
    }

    @Test func garbageProgressCrossesNothing() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        for junk in ["150", "-5", "unknown", "NaN"] {
            #expect(h.set(HA.x1c, "_print_progress", junk, after: 10).alerts.isEmpty)
        }
    }

    @Test func configurableMilestones() {
        var h = PipelineHarness(devices: [device()], configuration: PlannerConfiguration(milestones: [10, 90]))
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "50", after: 60)
        h.set(HA.x1c, "_print_progress", "95", after: 60)
        #expect(h.pushes.alerts.compactMap { $0.json["printerState"]?["progress"]?.intValue } == [0, 10, 90])
    }
}

@Suite struct LiveActivityTests {
    static let tokens = [HA.x1c: HA.activityToken]

    @Test func routineUpdatesAreThrottledToOnePer30SecondsAtPriority5() {
        var h = PipelineHarness(devices: [device(activity: Self.tokens)])
        h.startPrint(HA.x1c)
        let startTime = h.clock.now()
        for percent in 1...60 {  // a reading every 5 s for 5 minutes
            h.set(HA.x1c, "_print_progress", String(percent), after: 5)
        }
        h.wait(60)
        let routine = h.pushes.filter { $0.event == .update && $0.priority == 5 }
        #expect(routine.count >= 9 && routine.count <= 11, "\(routine.count) updates in 300 s")
        for (earlier, later) in zip(routine, routine.dropFirst()) {
            #expect(later.createdAt - earlier.createdAt >= 30)
        }
        #expect(routine.allSatisfy { $0.topic == "com.samduncan.PrinterMonitor.push-type.liveactivity" })
        // The last update carries the last reading, not a stale one.
        #expect(routine.last?.json["aps"]?["content-state"]?["progress"] == .number(60))
        #expect((routine.first?.createdAt ?? startTime) - startTime >= 2, "waits for the burst to settle")
    }

    @Test func aBurstOfEntityUpdatesGoesOutAsOnePushWithEveryValue() {
        var h = PipelineHarness(devices: [device(activity: Self.tokens)])
        h.startPrint(HA.x1c)
        h.wait(60)
        h.set(HA.x1c, "_print_progress", "10")
        h.set(HA.x1c, "_current_layer", "25", after: 0.01)
        h.set(HA.x1c, "_total_layer_count", "250", after: 0.01)
        h.set(HA.x1c, "_remaining_time", "1.5", after: 0.01, attributes: ["unit_of_measurement": "h"])
        h.set(HA.x1c, "_nozzle_temperature", "219.7", after: 0.01)
        h.set(HA.x1c, "_bed_temperature", "65.2", after: 0.01)
        let fired = h.wait(5)
        #expect(fired.count == 1)
        let state = fired.first?.json["aps"]?["content-state"]
        #expect(state == .object([
            "progress": .number(10), "currentLayer": .number(25), "totalLayers": .number(250),
            "remainingSeconds": .number(5400), "status": .string("running"), "nozzleTemp": .number(220),
            "bedTemp": .number(65),
        ]))
    }

    @Test func unchangedContentSendsNothing() {
        var h = PipelineHarness(devices: [device(activity: Self.tokens)])
        h.startPrint(HA.x1c)
        h.wait(60)
        h.set(HA.x1c, "_nozzle_temperature", "220.1")
        h.wait(60)
        h.set(HA.x1c, "_nozzle_temperature", "219.9")  // still 220 on the phone
        h.set(HA.x1c, "_current_stage", "printing")
        #expect(h.wait(60).isEmpty)
    }

    @Test func statusChangesGoAtOnceAndReplaceAScheduledUpdate() {
        var h = PipelineHarness(devices: [device(activity: Self.tokens)])
        h.startPrint(HA.x1c)
        h.wait(60)
        h.set(HA.x1c, "_print_progress", "10")
        h.set(HA.x1c, "_current_stage", "paused_nozzle_clog", after: 0.5)
        let paused = h.set(HA.x1c, "_print_status", "pause")
        #expect(paused.liveActivity.map(\.priority) == [10])
        #expect(paused.liveActivity.first?.json["aps"]?["content-state"]?["progress"] == .number(10))
        #expect(h.wait(60).isEmpty, "the scheduled routine update was superseded")
    }

    @Test func endCarriesRealFinalValuesAndSpendsTheToken() {
        var h = PipelineHarness(devices: [device(activity: Self.tokens)])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_total_layer_count", "250")
        h.set(HA.x1c, "_current_layer", "249", after: 30)
        h.set(HA.x1c, "_nozzle_temperature", "220", after: 1)
        h.set(HA.x1c, "_bed_temperature", "65", after: 1)
        h.set(HA.x1c, "_print_progress", "99", after: 1)
        let end = h.set(HA.x1c, "_print_status", "finish", after: 1).filter { $0.event == .end }
        #expect(end.count == 1)
        let aps = end.first?.json["aps"]
        #expect(aps?["event"] == .string("end"))
        #expect(aps?["content-state"] == .object([
            "progress": .number(100), "currentLayer": .number(250), "totalLayers": .number(250),
            "remainingSeconds": .number(0), "status": .string("complete"), "nozzleTemp": .number(220),
            "bedTemp": .number(65),
        ]))
        let now = h.clock.now().wholeSeconds
        #expect(aps?["dismissal-date"]?.intValue == now + 3600)
        #expect(aps?["timestamp"]?.intValue == now)
        #expect(end.first?.priority == 10)
        #expect(h.pipeline.devices[0].activityTokens[HA.x1c] == nil)
        #expect(h.wait(120).isEmpty, "nothing more goes to a spent token")
    }

    @Test func twoPhonesOnOnePrinterBothGetUpdates() {
        var h = PipelineHarness(devices: [
            device("a", activity: [HA.x1c: HA.activityToken]), device("b", activity: [HA.x1c: HA.activityToken + "11"]),
        ])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "5", after: 60)
        h.wait(60)
        let updates = h.pushes.filter { $0.event == .update }
        #expect(Set(updates.map(\.deviceID)) == ["a", "b"])
        #expect(Set(updates.map(\.token)).count == 2)
    }

    @Test func pushToStartBeginsTheActivityRemotely() {
        var h = PipelineHarness(devices: [device(pushToStart: HA.pushToStartToken)])
        h.startPrint(HA.x1c, file: "gear.3mf")
        let start = h.pushes.filter { $0.event == .start }
        #expect(start.count == 1)
        #expect(start.first?.tokenKind == .pushToStart && start.first?.token == HA.pushToStartToken)
        let aps = start.first?.json["aps"]
        #expect(aps?["attributes-type"] == .string("PrinterActivityAttributes"))
        #expect(aps?["attributes"]?["filename"] == .string("gear.3mf"))
        #expect(aps?["attributes"]?["entityPrefix"] == .string(HA.x1c))
        #expect(aps?["attributes"]?["printerModel"] == .string("X1C"))
        #expect(aps?["alert"]?["title"] == .string("Print Started"))
    }

    @Test func throttleIntervalIsConfigurable() {
        var h = PipelineHarness(
            devices: [device(activity: Self.tokens)], configuration: PlannerConfiguration(liveActivityInterval: 120))
        h.startPrint(HA.x1c)
        for percent in 1...60 { h.set(HA.x1c, "_print_progress", String(percent), after: 5) }
        h.wait(300)
        let routine = h.pushes.filter { $0.priority == 5 }
        #expect(routine.count >= 2 && routine.count <= 4)
    }
}

@Suite struct RestoredStateTests {
    @Test func aTerminalStatusMissedWhileDownIsSentOnce() {
        let restored = [HA.x1c: PrinterNotificationState(lastStatus: .running, printID: "x1c-1")]
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])], restoring: restored)
        h.set(HA.x1c, "_print_progress", "100")
        let first = h.set(HA.x1c, "_print_status", "finish")
        #expect(first.events == [.complete, .end])
        #expect(h.set(HA.x1c, "_print_status", "finish", after: 10).isEmpty)
    }

    @Test func aPrintStillRunningAfterARestartIsNotStartedAgain() {
        let restored = [HA.x1c: PrinterNotificationState(
            lastStatus: .running, printID: "x1c-1", milestonesSent: [25], milestoneReference: 30)]
        var h = PipelineHarness(devices: [device()], restoring: restored)
        #expect(h.set(HA.x1c, "_print_status", "running").isEmpty)
        #expect(h.set(HA.x1c, "_print_progress", "45", after: 60).isEmpty)
        #expect(h.set(HA.x1c, "_print_progress", "52", after: 60).alerts.events == [.milestone])
    }
}

@Suite struct PushToStartPreferenceTests {
    @Test func pushToStartFollowsTheStartPreference() {
        var h = PipelineHarness(devices: [
            device("wants", pushToStart: HA.pushToStartToken),
            device("no-start", preferences: NotificationPreferences(onStart: false), pushToStart: HA.pushToStartToken),
            device("has-activity", activity: [HA.x1c: HA.activityToken], pushToStart: HA.pushToStartToken),
        ])
        h.startPrint(HA.x1c)
        #expect(h.pushes.filter { $0.event == .start }.map(\.deviceID) == ["wants"])
    }
}

/// Recordings that start with events, no get_states: HA's old_state is the
/// first status seen.
@Suite struct OldStateBaselineTests {
    func run(_ messages: [HAMessage]) -> [Push] {
        let clock = ManualClock(EpochTime(seconds: 1_000_000))
        var pipeline = PrinterPipeline(devices: [device()], clock: clock)
        var pushes: [Push] = []
        for message in messages {
            if let time = message.time {
                pushes += pipeline.fireDue(upTo: time).pushes
                clock.set(time)
            }
            pushes += pipeline.handle(message).pushes
        }
        return pushes + pipeline.fireDue(upTo: .distantFuture).pushes
    }

    @Test func aFirstEventFromIdleToRunningIsAStart() {
        let status = HA.entity(HA.x1c, "_print_status")
        let progress = HA.entity(HA.x1c, "_print_progress")
        let pushes = run([
            HA.change(status, from: "idle", to: "running", at: 1000),
            HA.change(progress, from: "0", to: "30", at: 1060),
            HA.change(status, from: "running", to: "finish", at: 2000),
        ])
        #expect(pushes.alerts.events == [.started, .milestone, .complete])
    }

    @Test func aFirstEventFromUnavailableIsStillABaseline() {
        let status = HA.entity(HA.x1c, "_print_status")
        #expect(run([HA.change(status, from: "unavailable", to: "running", at: 1000)]).isEmpty)
        #expect(run([HA.change(status, from: "running", to: "running", at: 1000)]).isEmpty)
    }

    @Test func oldStateNeverOverridesWhatTheCacheKnows() {
        let status = HA.entity(HA.x1c, "_print_status")
        let pushes = run([
            HA.change(status, from: "idle", to: "running", at: 1000),
            // HA claims it was idle again; the cache knows it was running.
            HA.change(status, from: "idle", to: "running", at: 1100),
        ])
        #expect(pushes.alerts.events == [.started])
    }
}

@Suite struct TokenRejectionTests {
    @Test func deadAndWrongTokensStopReceivingPushes() {
        var h = PipelineHarness(devices: [
            device("dead"), Device(id: "wrong", apnsToken: String(repeating: "12", count: 32)),
            Device(id: "ok", apnsToken: String(repeating: "34", count: 32), activityTokens: [HA.x1c: HA.activityToken]),
        ])
        #expect(h.pipeline.applyTokenRejection(token: HA.deviceToken, action: .remove) == ["device dead (ababab…abab) removed"])
        #expect(h.pipeline.applyTokenRejection(token: String(repeating: "12", count: 32), action: .disable).count == 1)
        #expect(h.pipeline.applyTokenRejection(token: HA.activityToken, action: .remove).count == 1)
        h.startPrint(HA.x1c)
        #expect(Set(h.pushes.map(\.deviceID)) == ["ok"])
        #expect(h.pushes.allSatisfy { $0.kind == .alert }, "the refused activity token gets nothing")
        #expect(h.pipeline.devices.map(\.id) == ["wrong", "ok"])
    }
}

@Suite struct ResyncSnapshotTests {
    func snapshot(_ states: [(String, String)], at seconds: Double) -> HAMessage {
        let json = #"{"id":3,"type":"result","success":true,"result":["#
            + states.map { #"{"entity_id":"\#($0.0)","state":"\#($0.1)","attributes":{},"last_updated":"2026-11-20T10:00:00+00:00"}"# }
                .joined(separator: ",") + "]}"
        return try! HAMessage(json: JSONParser.parse(json))
    }

    @Test func aPrintThatFinishedMeanwhileCompletesWithoutStaleMilestones() {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_total_layer_count", "250")
        h.set(HA.x1c, "_print_progress", "40", after: 60)
        let resync = h.pipeline.handle(snapshot([
            (HA.entity(HA.x1c, "_print_progress"), "100"), (HA.entity(HA.x1c, "_current_layer"), "250"),
            (HA.entity(HA.x1c, "_print_status"), "finish"),
        ], at: 0)).pushes
        #expect(resync.events == [.complete, .end, .history])
        #expect(resync.last { $0.event == .end }?.json["aps"]?["content-state"]?["currentLayer"] == .number(250))
    }

    @Test func aPrintStillRunningGetsTheMilestoneItPassed() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "40", after: 60)
        let resync = h.pipeline.handle(snapshot([
            (HA.entity(HA.x1c, "_print_progress"), "60"), (HA.entity(HA.x1c, "_print_status"), "running"),
        ], at: 0)).pushes
        #expect(resync.alerts.events == [.milestone])
    }
}

/// A print told to many phones: each distinct payload is encoded once and its
/// bytes shared, and what differs between phones (their language, their own
/// name for the printer) still reaches each of them.
@Suite struct FanOutPayloadTests {
    @Test func phonesShareBytesOnlyWhereTheirPayloadIsTheSame() {
        var phones: [Device] = []
        for (index, language) in ["en", "en", "de", "en"].enumerated() {
            var phone = device()
            phone.id = "phone\(index)"
            phone.apnsToken = String(repeating: "\(index)", count: 64)
            phone.language = language
            phone.activityTokens = [HA.x1c: String(repeating: "a\(index)", count: 32)]
            if index == 3 {
                phone.printerName = "Garage"  // its own name, for the one printer it follows
                phone.printerPrefixes = [HA.x1c]
            }
            phones.append(phone)
        }
        let clock = ManualClock(EpochTime(seconds: 1_000_000))
        var pipeline = PrinterPipeline(devices: phones, clock: clock)
        let status = HA.entity(HA.x1c, "_print_status")
        var pushes: [Push] = []
        for message in [HA.change(status, from: "idle", to: "running", at: 1_000_000), HA.change(status, from: "running", to: "finish", at: 1_003_600)] {
            if let time = message.time {
                pushes += pipeline.fireDue(upTo: time).pushes
                clock.set(time)
            }
            pushes += pipeline.handle(message).pushes
        }
        let complete = Dictionary(uniqueKeysWithValues: pushes.filter { $0.kind == .alert && $0.event == .complete }.map { ($0.deviceID, $0.payload) })
        #expect(complete.count == 4)
        #expect(complete["phone0"] == complete["phone1"], "the same language and name: the same bytes")
        #expect(complete["phone0"] != complete["phone2"], "German")
        #expect(complete["phone0"] != complete["phone3"], "its own name for the printer")
        #expect(String(decoding: complete["phone3"] ?? [], as: UTF8.self).contains("Garage"))
        let ends = pushes.filter { $0.kind == .liveActivity && $0.event == .end }
        #expect(ends.count == 4)
        #expect(Set(ends.map(\.payload)).count == 1, "one Live Activity end for every token")
        #expect(Set(ends.map(\.token)).count == 4)
    }
}
