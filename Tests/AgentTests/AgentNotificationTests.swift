import Agent
import Foundation
import DeviceStore
import PrintBridgeCore
import Testing

/// What the app's notification history gets from the running agent: each
/// alert sent to a phone, with what APNs made of it.
@Suite struct AgentNotificationTests {
    /// The phone's history, once the agent's store queue has written it.
    func history(_ h: AgentHarness, token: String = AgentHarness.phone) async throws -> [SentNotification] {
        await h.agentStore.drain()
        let device = try #require(try h.store.devices().first { $0.apnsToken == token }).id
        return try h.store.notifications(device: device, limit: 50).notifications
    }

    @Test func aDeliveredAlertIsInThePhonesHistoryAsDelivered() async throws {
        let h = try AgentHarness()
        try await withAgent(h) { h, _ in
            await h.startPrintAndLetItSettle()
            await h.handled.wait(for: .answered, count: 1)
            await h.set("_print_progress", "30")
            await h.handled.wait(for: .answered, count: 2)
        }
        let sent = try await history(h)
        #expect(sent.map(\.event) == [.milestone, .started], "newest first")
        #expect(sent.map(\.outcome) == [.delivered, .delivered])
        let started = try #require(sent.last)
        #expect(started.title == "Print Started")
        #expect(started.body.contains("benchy.3mf"))
        #expect(started.printer == AgentHarness.printer)
        #expect(started.apnsID == h.alerts.first?.apnsID)
        #expect(started.createdAt == h.alerts.first?.createdAt)
    }

    @Test func anAlertAPNsRefusedIsInTheHistoryAsRejectedAndTheOtherPhonesAsDelivered() async throws {
        let other = String(repeating: "cd", count: 32)
        let h = try AgentHarness(phones: [AgentHarness.phone, other])
        h.sender.script(.rejected(status: 400, reason: APNsReason("BadDeviceToken"), tokenAction: .disable))
        try await withAgent(h) { h, _ in
            await h.startPrintAndLetItSettle()
            await h.handled.wait(for: .answered, count: 2)
        }
        let refused = try #require(h.alerts.first).token
        let fine = refused == other ? AgentHarness.phone : other
        #expect(try await history(h, token: refused).map(\.outcome) == [.rejected])
        #expect(try await history(h, token: fine).map(\.outcome) == [.delivered])
    }

    @Test func anAlertWaitingForAPNsIsPendingAndADryRunCountsAsDelivered() async throws {
        let waiting = try AgentHarness()
        waiting.sender.hold()
        try await withAgent(waiting) { h, run in
            await h.startPrintAndLetItSettle()
            try await h.stopAndLetTheGraceRunOut(run)
        }
        #expect(try await history(waiting).map(\.outcome) == [.pending], "still in the outbox")
        waiting.sender.release()

        let dry = try AgentHarness(sender: RecordingSender(deliveryKind: .dryRun))
        try await withAgent(dry) { h, _ in
            await h.startPrintAndLetItSettle()
            await h.handled.wait(for: .answered, count: 1)
        }
        #expect(try await history(dry).map(\.outcome) == [.delivered])
    }

    @Test func anAlertKeptPastItsExpiryAcrossARestartIsExpired() async throws {
        let first = try AgentHarness()
        first.sender.hold()
        try await withAgent(first) { h, run in
            await h.startPrintAndLetItSettle()
            try await h.stopAndLetTheGraceRunOut(run)
        }
        first.sender.release()
        // The next start is a day later: an alert's apns-expiration (24 h) has passed.
        let second = try AgentHarness(reusing: first)
        second.clock.advance(by: 86400)
        try await withAgent(second) { _, _ in }
        #expect(second.sender.pushes.isEmpty)
        #expect(try await history(second).map(\.outcome) == [.expired])
    }

    @Test func withARetentionOfNoDaysNothingIsRecorded() async throws {
        let h = try AgentHarness(notificationRetention: 0)
        try await withAgent(h) { h, _ in
            await h.startPrintAndLetItSettle()
            await h.handled.wait(for: .answered, count: 1)
        }
        #expect(h.alerts.count == 1)
        #expect(try await history(h).isEmpty)
    }

    /// A print's end: the alert and then the silent refresh go out; a
    /// refresh over the phone's hourly allowance is skipped, logged at debug
    /// and counted as limited. Neither refresh is in the phone's history.
    @Test func theSilentRefreshIsSentWithinThePhonesAllowanceAndNotInItsHistory() async throws {
        var planner = PlannerConfiguration()
        planner.backgroundLimit = 1
        let h = try AgentHarness(planner: planner)
        try await withAgent(h) { h, _ in
            for print in 1...2 {
                await h.startPrintAndLetItSettle()
                h.clock.advance(by: 60)
                await h.set("_print_status", "finish")
                // started, complete and (the first time only) the refresh.
                await h.handled.wait(for: .answered, count: print == 1 ? 3 : 5)
            }
        }
        let background = h.sender.pushes.filter { $0.kind == .background }
        #expect(background.count == 1)
        #expect(background.first?.priority == 5 && background.first?.event == .history)
        #expect(h.sender.pushes.map(\.event).prefix(3) == [.started, .complete, .history], "after the alert")
        #expect(h.logs.messages(.debug).contains("background push skipped: the phone had its hourly allowance"))
        let exposition = h.metrics.exposition()
        #expect(exposition.contains(#"type="background",event="history",outcome="limited""#), "\(exposition)")
        #expect(exposition.contains(#"type="background",event="history",outcome="delivered""#))
        #expect(try await history(h).map(\.event) == [.complete, .started, .complete, .started])
    }

    /// The silent push tells the app its print is in the history: it leaves
    /// only once the store has written the record, however slow the disk, so
    /// the app that asks at once finds it (GET /api/history, /api/statistics).
    @Test func theSilentRefreshWaitsForItsPrintsRecord() async throws {
        let h = try AgentHarness()
        let disk = DispatchSemaphore(value: 0)
        try await withAgent(h) { h, _ in
            await h.startPrintAndLetItSettle()
            await h.handled.wait(for: .answered, count: 1)
            // The store's thread stalls (an SD card's journal commit).
            h.agentStore.write("stalled") { _ in disk.wait() }
            h.clock.advance(by: 60)
            await h.set("_print_status", "finish")
            await h.handled.wait(for: .answered, count: 2)
            #expect(h.sender.pushes.map(\.event) == [.started, .complete], "the alert goes; the refresh waits for the record")
            disk.signal()
            await h.handled.wait(for: .answered, count: 3)
            #expect(h.sender.pushes.last?.event == .history)
            #expect((try? h.store.printHistory().count) == 1, "the record was there before the refresh left")
        }
    }
}
