import Agent
import DeviceStore
import PrintBridgeCore
import Testing

/// A failure nobody opened, in the running agent (issue 53): told again at
/// the phone's delay, woken by the clock alone; not once the app said it
/// was opened (`AgentInbox.alertOpened`, as the API's opened route calls it).
@Suite struct AgentRetellTests {
    func failedPrint(_ h: AgentHarness) async -> Push? {
        await h.startPrintAndLetItSettle()
        await h.set("_print_status", "failed")
        await h.advance(by: 10)
        await h.handled.wait(for: .answered, count: 2)
        return h.alerts.first { $0.event == .failed }
    }

    @Test func anUnopenedFailureIsToldAgainAtTheDelay() async throws {
        let h = try AgentHarness()
        try await withAgent(h) { h, _ in
            let first = try #require(await failedPrint(h))
            await h.advance(by: 15 * 60)
            await h.handled.wait(for: .answered, count: 3)
            let retold = try #require(h.alerts.last)
            #expect(retold.event == .failed && retold.collapseID == first.collapseID && retold.apnsID != first.apnsID)
            #expect(retold.payloadText.contains(#""interruption-level":"time-sensitive""#))
        }
    }

    @Test func anOpenedFailureIsNotToldAgain() async throws {
        let h = try AgentHarness()
        try await withAgent(h) { h, _ in
            let first = try #require(await failedPrint(h))
            h.agent.inbox.alertOpened(try #require(first.apnsID))
            await h.handled.wait(for: .alertOpened, count: 1)
            await h.advance(by: 15 * 60)
            await h.agentStore.drain()
            #expect(h.alerts.filter { $0.event == .failed }.count == 1)
        }
    }

    /// What waits is in the store: an agent restarted within the delay
    /// still tells it, at the same moment, once.
    @Test func anUnopenedFailureSurvivesARestartAndIsToldAgain() async throws {
        let first = try AgentHarness()
        var told: Push?
        try await withAgent(first) { h, _ in
            told = await failedPrint(h)
            await h.agentStore.drain()
        }
        let failed = try #require(told)
        let waiting = try first.store.retells()
        #expect(waiting.map(\.push.apnsID) == [failed.apnsID] && waiting.first?.due == failed.createdAt + 15 * 60)

        let second = try AgentHarness(reusing: first)
        try await withAgent(second) { h, _ in
            await h.advance(by: failed.createdAt + 15 * 60 - h.clock.now())
            await h.handled.wait(for: .answered, count: 1)
            await h.agentStore.drain()
        }
        let retold = try #require(second.alerts.first)
        #expect(second.alerts.count == 1 && retold.event == .failed && retold.collapseID == failed.collapseID)
        #expect(retold.payloadText.contains(#""interruption-level":"time-sensitive""#))
        #expect(try second.store.retells().isEmpty, "told once")
    }

    /// The app said it was opened: the store forgets it too.
    @Test func anOpenedFailureLeavesTheStore() async throws {
        let h = try AgentHarness()
        try await withAgent(h) { h, _ in
            let first = try #require(await failedPrint(h))
            await h.agentStore.drain()
            #expect(try h.store.retells().count == 1)
            h.agent.inbox.alertOpened(try #require(first.apnsID))
            await h.handled.wait(for: .alertOpened, count: 1)
            await h.agentStore.drain()
            #expect(try h.store.retells().isEmpty)
        }
    }
}
