import Agent
import ControlAPI
import DeviceStore
import HomeAssistantLink
import PrintBridgeCore
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing
import TestSupport

/// The daemon's behaviour in this process: a scripted HA stream, a
/// recording sender, a manual clock and a real store in a temporary directory.
@Suite struct AgentTests {
    @Test func aStartIsSentWhenItsSettleDeadlineComesWithNoOtherInput() async throws {
        let h = try AgentHarness()
        try await withAgent(h) { h, _ in
            await h.startPrint()
            #expect(h.alerts.isEmpty, "a start waits START_SETTLE (5 s) for its file and values")
            // Nothing but the clock moves: the agent wakes at the pipeline's deadline.
            await h.advance(by: 5)
            await h.handled.wait(for: .answered, count: 1)
            #expect(h.alerts.map(\.event) == [.started])
            #expect(h.alerts.first?.token == AgentHarness.phone)
        }
        // The store holds the printer's memory and no unanswered push.
        #expect(try h.store.outbox().isEmpty)
        #expect(try h.store.notificationStates()[AgentHarness.printer] != nil)
        #expect(h.sender.shutdowns == 0, "the sender is a service of its own, shut down after the agent")
        #expect(h.logs.messages().last == "stopped")
    }

    @Test func withNothingPendingTheAgentAsksToBeWokenForNothing() async throws {
        let h = try AgentHarness()
        try await withAgent(h) { h, _ in
            await h.set("_print_status", "idle")
            await h.handled.wait(until: { _ in true })
            // No tick, no pipeline timer, no store check: nothing sleeps on the clock.
            #expect(h.clock.sleepingUntil.isEmpty)
        }
    }

    @Test func aPushAPNsDidNotAnswerIsRetriedAtItsDeadline() async throws {
        let h = try AgentHarness()
        h.sender.script(.gaveUp(cause: .connection("no route"), attempts: 3))
        try await withAgent(h) { h, _ in
            await h.startPrintAndLetItSettle()
            await h.handled.wait(for: .answered, count: 1)
            #expect(h.sender.pushes.filter { $0.kind == .alert }.count == 1)
            await h.agentStore.drain()
            let kept = try h.store.outbox()
            #expect(kept.count >= 1, "kept on disk until APNs answers")
            #expect(h.logs.messages(.warning).contains("APNs did not answer; the push stays in the outbox and is retried"))
            // The outbox's first retry delay is 2 s.
            await h.advance(by: 2)
            await h.handled.wait(for: .answered, count: 2)
            #expect(h.alerts.map(\.event) == [.started, .started])
            #expect(Set(h.alerts.map(\.apnsID)).count == 1, "one apns-id for every attempt")
        }
        #expect(try h.store.outbox().isEmpty)
        let exposition = try PrometheusText(h.metrics.exposition())
        #expect(exposition.value("printbridge_apns_failed_attempts_total") == 1)
        #expect(exposition.value("printbridge_outbox_pushes") == 0)
    }

    @Test func aTokenAPNsCallsDeadIsRemovedFromTheStoreAndNotUsedAgain() async throws {
        let other = String(repeating: "cd", count: 32)
        let h = try AgentHarness(phones: [AgentHarness.phone, other])
        h.sender.script(.rejected(status: 410, reason: APNsReason("Unregistered"), tokenAction: .remove))
        try await withAgent(h) { h, _ in
            await h.startPrintAndLetItSettle()
            await h.handled.wait(for: .answered, count: 2)
            let refused = try #require(h.alerts.first).token
            await h.agentStore.drain()  // the verdict is written on the store's queue
            let tokens = try h.store.devices().map(\.apnsToken)
            #expect(!tokens.contains(refused))
            // The next alert goes to the other phone only.
            await h.set("_print_status", "pause")
            await h.advance(by: 3)  // a pause waits REASON_WINDOW for its reason
            await h.handled.wait(for: .answered, count: 3)
            let paused = h.alerts.filter { $0.event == .paused }
            #expect(paused.map(\.token) == [refused == other ? AgentHarness.phone : other])
        }
    }

    @Test func devicesChangedThroughTheInboxAreReadBackFromTheStore() async throws {
        let h = try AgentHarness(phones: [])
        try await withAgent(h) { h, _ in
            let newPhone = String(repeating: "ef", count: 32)
            _ = try h.store.register(apnsToken: newPhone, haURL: nil, printerPrefix: nil, printerName: nil)
            let before = h.handled.kinds.filter { $0 == .devicesChanged }.count
            h.agent.inbox.devicesChanged()
            await h.handled.wait(for: .devicesChanged, count: before + 1)
            await h.startPrintAndLetItSettle()
            await h.handled.wait(for: .answered, count: 1)
            #expect(h.alerts.map(\.token) == [newPhone])
        }
        #expect(h.logs.all.contains { $0.message == "devices reloaded" && $0.metadata["devices.count"] == "1" })
    }

    /// Another connection's commit (as `printbridge devices add` makes) is
    /// noticed by the watch on the store's files, with no time passing.
    @Test func anotherProcessAddingAPhoneIsNoticedByTheStoreWatch() async throws {
        let h = try AgentHarness(phones: [])
        try await withAgent(h) { h, _ in
            await h.set("_print_status", "idle")
            let other = try DeviceStore(directory: h.directory)
            _ = try other.register(apnsToken: String(repeating: "12", count: 32), haURL: nil, printerPrefix: nil, printerName: nil)
            await h.handled.wait(for: .devicesChanged, count: 1)
        }
        #expect(try PrometheusText(h.metrics.exposition()).value("printbridge_devices") == 1)
    }

    @Test func newSettingsApplyToTheNextChange() async throws {
        let h = try AgentHarness()
        try await withAgent(h) { h, _ in
            await h.startPrintAndLetItSettle()
            h.agent.inbox.reconfigure(PlannerConfiguration(milestones: [10]))
            await h.handled.wait(for: .settings, count: 1)
            await h.set("_print_progress", "12")
            await h.handled.wait(for: .answered, count: 2)
            #expect(h.alerts.map(\.event) == [.started, .milestone])
        }
    }

    /// In `run`'s group the link is shut down first; the agent's own graceful
    /// shutdown takes no more of its events either way.
    @Test func gracefulShutdownTakesNoMoreEventsAndWaitsForPushesInFlight() async throws {
        let h = try AgentHarness()
        h.sender.hold()
        try await testGracefulShutdown { trigger in
            let run = Task { try await h.agent.run() }
            await h.startPrintAndLetItSettle()
            #expect(h.sender.heldCount == 1)
            trigger.triggerGracefulShutdown()
            await h.handled.wait(for: .linkEnded, count: 1)
            await h.set("_print_progress", "30")
            // Still running: the push in flight has its grace.
            h.sender.release()
            try await run.value
        }
        #expect(h.alerts.map(\.event) == [.started], "no milestone from news after the shutdown")
        #expect(try h.store.outbox().isEmpty, "answered within the grace")
        #expect(h.logs.messages().last == "stopped")
    }

    @Test func aPushUnansweredAfterTheGraceStaysInTheStoreForTheNextStart() async throws {
        let h = try AgentHarness()
        h.sender.hold()
        try await withAgent(h) { h, run in
            await h.startPrintAndLetItSettle()
            #expect(h.sender.heldCount == 1)
            try await h.stopAndLetTheGraceRunOut(run)
        }
        #expect(try h.store.outbox().map(\.push.event) == [.started])
        #expect(h.logs.all.contains { $0.message == "push(es) kept in the outbox for the next start" && $0.metadata["outbox.count"] == "1" })
        h.sender.release()
    }

    @Test func pushesKeptByTheLastRunAreSentAtStart() async throws {
        let first = try AgentHarness()
        first.sender.hold()
        try await withAgent(first) { h, run in
            await h.startPrintAndLetItSettle()
            try await h.stopAndLetTheGraceRunOut(run)
        }
        let kept = try first.store.outbox()
        #expect(kept.count == 1)
        first.sender.release()

        // A new agent on the same store sends it with the same apns-id.
        let second = try AgentHarness(reusing: first)
        try await withAgent(second) { h, _ in
            await h.handled.wait(until: { _ in !second.sender.pushes.isEmpty })
            await h.handled.wait(for: .answered, count: 1)
        }
        #expect(second.sender.pushes.map(\.apnsID) == kept.map(\.push.apnsID))
        #expect(try second.store.outbox().isEmpty)
    }

    @Test func aDryRunCountsItsPushesAsDryRun() async throws {
        let h = try AgentHarness(sender: RecordingSender(deliveryKind: .dryRun))
        try await withAgent(h) { h, _ in
            await h.startPrintAndLetItSettle()
            await h.handled.wait(for: .answered, count: 1)
        }
        #expect(h.metrics.exposition().contains("outcome=\"dry_run\""))
        #expect(!h.logs.messages().contains("push delivered"))
    }

    @Test func aBulkMessageIsFollowedByOneHeapTrim() async throws {
        let h = try AgentHarness()
        try await withAgent(h) { h, _ in
            await h.send(.bulkHandled)
            await h.send(.bulkHandled)
            #expect(h.trims == 0)
            await h.advance(by: 0.5)
            #expect(h.trims == 1)
        }
    }

    @Test func connectionNewsGoesToMetricsAndLogsWithItsDataInMetadata() async throws {
        let h = try AgentHarness()
        try await withAgent(h) { h, _ in
            await h.send(.connected)
            await h.send(.notice(.reconnectScheduled(afterSeconds: 4.2, attempt: 3)))
            await h.send(.disconnected(.closed))
        }
        let reconnect = h.logs.all.first { $0.message == "reconnecting to Home Assistant" }
        #expect(reconnect?.metadata["reconnect.in_seconds"] == "5")
        #expect(reconnect?.metadata["reconnect.attempt"] == "3")
        let lost = h.logs.all.first { $0.message == "disconnected from Home Assistant" && $0.level == .warning }
        #expect(lost?.metadata["ha.reason"] == "connection closed")
        #expect(try PrometheusText(h.metrics.exposition()).value("printbridge_ha_reconnects_total") == 1)
    }

    @Test func theAPISeesThePrinterAfterItChanges() async throws {
        let h = try AgentHarness()
        try await withAgent(h) { h, _ in
            await h.set("_print_status", "running")
            await h.set("_print_progress", "42")
        }
        let printers = h.published
        #expect(printers.map(\.prefix) == [AgentHarness.printer])
        #expect(try PrometheusText(h.metrics.exposition()).value("printbridge_printers") == 1)
    }
}

@Suite struct AgentWakeUpTests {
    @Test func aRetryInFlightDoesNotWakeTheAgentUntilItIsAnswered() async throws {
        let h = try AgentHarness()
        h.sender.script(.gaveUp(cause: .connection("down"), attempts: 3))
        try await withAgent(h) { h, _ in
            await h.startPrintAndLetItSettle()
            await h.handled.wait(for: .answered, count: 1)
            h.sender.hold()
            await h.advance(by: 2)  // the retry goes out and waits for APNs
            #expect(h.sender.heldCount == 1)
            let now = h.clock.now()
            // No wake-up is due now (a busy loop).
            #expect(h.clock.sleepingUntil.allSatisfy { $0 > now })
            #expect(h.handled.kinds.filter { $0 == .deadline }.count == 2)
            h.sender.release()
            await h.handled.wait(for: .answered, count: 2)
        }
    }
}
