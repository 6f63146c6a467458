import Testing
@testable import PrintBridgeCore

/// Transitions real Bambu printers make, as ha-bambulab writes them: the
/// status, the print error and the task entities land in no fixed order.
@Suite struct CancelOrderTests {
    let cancelCode: [String: JSONValue] = ["code": .string("0300_400C"), "error": .string("The task was canceled.")]

    @Test func statusFirstThenCancelCodeIsOneCancel() {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
        h.startPrint(HA.x1c)
        #expect(h.set(HA.x1c, "_print_status", "failed", after: 60).isEmpty, "a failure waits for a cancel code")
        let cancelled = h.set(HA.x1c, "_print_error", "on", after: 1, attributes: cancelCode)
        #expect(cancelled.events == [.cancelled, .end])
        #expect(cancelled.liveActivity.first?.json["aps"]?["content-state"]?["status"] == .string("cancelled"))
        #expect(h.wait(60).isEmpty)
        #expect(!h.pushes.events.contains(.failed))
    }

    @Test func cancelCodeFirstThenStatusIsOneCancel() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        #expect(h.set(HA.x1c, "_print_error", "on", after: 60, attributes: cancelCode).isEmpty)
        #expect(h.set(HA.x1c, "_print_status", "failed", after: 1).events == [.cancelled])
        #expect(h.wait(60).isEmpty)
    }

    @Test func theBambuLabCancelEventCountsAsTheCode() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_status", "failed", after: 60)
        let produced = h.pipeline.handle(PrinterInput(time: nil, .printerEvent(prefix: HA.x1c, type: "event_print_canceled")))
        #expect(produced.pushes.events == [.cancelled, .history], "the alert, then the silent refresh")
        #expect(h.wait(60).isEmpty)
    }

    @Test func aFailureWithNoCancelAndNoEventIsToldWhenTheWindowEnds() {
        var h = PipelineHarness(devices: [device()])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_status", "failed", after: 60)
        #expect(h.wait(9.9).isEmpty)
        #expect(h.wait(0.1).events == [.failed])
    }
}

@Suite struct PrintEndsWithoutFinishTests {
    @Test func runningToIdleEndsTheLiveActivityWithTheLastValuesAndNoAlert() {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "40", after: 60)
        h.set(HA.x1c, "_current_layer", "80", after: 1)
        h.wait(60)
        #expect(h.set(HA.x1c, "_print_status", "idle", after: 60).isEmpty)
        let ended = h.wait(60)
        #expect(ended.events == [.end])
        let state = ended.first?.json["aps"]?["content-state"]
        #expect(state?["progress"] == .number(40))
        #expect(state?["currentLayer"] == .number(80))
        #expect(state?["status"] == .string("idle"))
        #expect(h.pushes.alerts.events == [.started, .milestone], "no false alert")
    }

    @Test func aFlickerWithTheSameFileIsNotANewPrint() {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "30", after: 60)
        for flicker in ["idle", "init"] {
            h.wait(60)
            #expect(h.set(HA.x1c, "_print_status", flicker, after: 1).isEmpty)
            #expect(h.set(HA.x1c, "_print_status", "running", after: 5).isEmpty)
            #expect(h.wait(120).events.allSatisfy { $0 == .update })
        }
        h.set(HA.x1c, "_print_progress", "55", after: 60)
        #expect(h.pushes.alerts.events == [.started, .milestone, .milestone])
        #expect(!h.pushes.events.contains(.end))
    }

    @Test func idleThenAnotherFileIsANewPrint() {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_status", "idle", after: 60)
        h.set(HA.x1c, "_task_name", "other.3mf", after: 5)
        h.set(HA.x1c, "_print_status", "running", after: 5)
        h.wait(10)
        #expect(h.pushes.alerts.events == [.started, .started])
        #expect(h.pushes.alerts.last?.json["printerState"]?["filename"] == .string("other.3mf"))
    }
}

@Suite struct PreparationTests {
    @Test func aCancelDuringPreparationIsToldAsFromRunning() {
        var h = PipelineHarness(devices: [device()])
        h.set(HA.x1c, "_print_status", "idle")
        h.set(HA.x1c, "_print_status", "prepare", after: 10)
        h.set(HA.x1c, "_print_error", "on", after: 60, attributes: ["code": .string("0300_400C")])
        #expect(h.set(HA.x1c, "_print_status", "failed", after: 1).events == [.cancelled])
    }

    @Test func aFailureDuringPreparationIsToldAsFromRunning() {
        var h = PipelineHarness(devices: [device()])
        h.set(HA.x1c, "_print_status", "idle")
        h.set(HA.x1c, "_print_status", "prepare", after: 10)
        h.set(HA.x1c, "_print_status", "failed", after: 60)
        #expect(h.wait(10).events == [.failed])
    }

    @Test func aPauseDuringPreparationIsToldAndResumesWithoutAStart() {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
        h.set(HA.x1c, "_print_status", "idle")
        h.set(HA.x1c, "_print_status", "prepare", after: 10)
        h.set(HA.x1c, "_current_stage", "paused_user", after: 60)
        #expect(h.set(HA.x1c, "_print_status", "pause").events == [.paused, .update])
        #expect(h.set(HA.x1c, "_print_status", "running", after: 60).events == [.resumed, .update], "no start")
    }
}

@Suite struct StartCarriesTheNewPrintTests {
    @Test func lateTaskNameAndProgressAreTheOnesTold() {
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
        h.startPrint(HA.x1c, file: "old.3mf")
        h.set(HA.x1c, "_print_progress", "100", after: 60)
        h.set(HA.x1c, "_current_layer", "200", after: 0)
        h.set(HA.x1c, "_print_status", "finish", after: 1)
        h.pipeline.devices[0].activityTokens[HA.x1c] = HA.activityToken  // the app starts the next activity
        // The next print: ha-bambulab writes `running` a report before the new file and progress.
        #expect(h.set(HA.x1c, "_print_status", "running", after: 600).isEmpty)
        h.set(HA.x1c, "_task_name", "new.3mf", after: 1)
        let started = h.wait(4)
        #expect(started.alerts.first?.json["printerState"]?["filename"] == .string("new.3mf"))
        #expect(started.alerts.first?.json["printerState"]?["progress"] == .number(0))
        let state = started.liveActivity.first?.json["aps"]?["content-state"]
        #expect(state?["progress"] == .number(0), "not the old print's 100 %")
        #expect(state?["currentLayer"] == .number(0))
    }

    @Test func aPrintThatStartedWhileAwayKeepsItsFreshProgress() {
        // A snapshot: progress changed after the status did (HA's last_changed).
        var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])], restoring: [
            HA.x1c: PrinterNotificationState(lastStatus: .idle)
        ])
        let t = h.clock.now().seconds
        let states = [
            HA.state(HA.entity(HA.x1c, "_print_status"), "running", at: t - 600),
            HA.state(HA.entity(HA.x1c, "_print_progress"), "12", at: t - 30),
            HA.state(HA.entity(HA.x1c, "_task_name"), "away.3mf", at: t - 600),
        ]
        let matcher = EntityMatcher()
        let matched = states.map { MatchedState(match: matcher.match(entityID: $0.entityID)!, state: $0) }
        #expect(h.pipeline.handle(PrinterInput(time: nil, .snapshot(matched))).pushes.isEmpty)
        let started = h.wait(5)
        #expect(started.alerts.events == [.started])
        #expect(started.liveActivity.first?.json["aps"]?["content-state"]?["progress"] == .number(12))
    }
}

/// What survives a crash: a print's notifications keep their apns-id, and a
/// print that started while PrintBridge was down is started once.
@Suite struct CrashMemoryTests {
    @Test func aPrintsNotificationsHaveStableIDs() {
        func startPushes() -> [Push] {
            var h = PipelineHarness(devices: [device(activity: [HA.x1c: HA.activityToken])])
            h.set(HA.x1c, "_print_status", "idle")
            h.set(HA.x1c, "_print_status", "running", after: 60)
            return h.wait(5)
        }
        let first = startPushes(), again = startPushes()
        let alert = first.alerts.first?.apnsID
        #expect(alert != nil && alert == again.alerts.first?.apnsID, "the same start, the same apns-id")
        #expect(first.liveActivity.first?.apnsID == nil, "routine updates get fresh ids")
        let id = Push.derivedID("x1c-1|started|0|ab")
        #expect(id.count == 36 && id == id.lowercased())
        #expect(Array(id)[14] == "8", "UUID version 8")
        #expect(id != Push.derivedID("x1c-1|started|0|ac"))
        // The same ids as ever (an outbox written by an older version keeps them):
        // the two FNV-1a hashes as 8-4-4-4-12 hex digits.
        #expect(id == "c27a89ef-1d23-815f-9617-34d0e48b4a58")
        #expect(Push.derivedID("") == "cbf29ce4-8422-8325-ac62-272e07bb0142")
        #expect(Push.derivedID("Ünïcode|é|42|" + String(repeating: "ab", count: 32)) == "53234dd4-8c2c-8937-91ff-2a20eaea6a50")
        // Fresh ids (Live Activity updates): version 4 UUIDs, lowercase, all different.
        let fresh = (0..<10_000).map { _ in Push.randomID() }
        #expect(Set(fresh).count == fresh.count)
        for id in fresh.prefix(100) {
            let characters = Array(id)
            #expect(id.count == 36 && [8, 13, 18, 23].allSatisfy { characters[$0] == "-" }, "\(id)")
            #expect(characters[14] == "4" && "89ab".contains(characters[19]), "version 4, RFC 9562 variant: \(id)")
            #expect(id.allSatisfy { "0123456789abcdef-".contains($0) }, "\(id)")
        }
    }

    @Test func aPrintThatStartedAfterWatchingBeganIsStartedWithoutMemory() {
        let states = { (t: Double) in [
            HA.state(HA.entity(HA.x1c, "_print_status"), "running", at: t),
            HA.state(HA.entity(HA.x1c, "_task_name"), "cube.3mf", at: t),
        ] }
        for (statusChanged, started) in [(-30.0, true), (-600.0, false)] {
            var h = PipelineHarness(devices: [device()])
            var planner = h.pipeline.planner
            planner.watchingSince = h.clock.now() + (-300.0)
            h.pipeline = PrinterPipeline(planner: planner, devices: h.pipeline.devices, clock: h.clock)
            let matcher = EntityMatcher()
            let matched = states(h.clock.now().seconds + statusChanged).map {
                MatchedState(match: matcher.match(entityID: $0.entityID)!, state: $0)
            }
            _ = h.pipeline.handle(PrinterInput(time: nil, .snapshot(matched)))
            #expect((h.wait(10).alerts.events == [.started]) == started, "status changed \(statusChanged) s ago")
        }
    }
}
