import Agent
import DeviceStore
import PrintBridgeCore
import Testing

/// Quiet hours in the running agent (issue 53): what is held is in the
/// store, a restart in the night keeps it, and the summary goes at the
/// quiet hours' end, woken by the clock alone.
@Suite struct AgentQuietHoursTests {
    /// The harness's clock starts at 2027-01-15T08:00:00Z: quiet 07:00–10:00 UTC.
    static let end = EpochTime(seconds: 1_800_007_200)

    @Test func whatWasHeldSurvivesARestartAndIsToldAtTheEnd() async throws {
        let first = try AgentHarness()
        let phone = try #require(try first.store.devices().first?.id)
        var patch = DeviceStore.PreferencesPatch()
        patch.schedule = .init(quietHours: .some(QuietHours(start: 7 * 60, end: 10 * 60, timeZone: "UTC")))
        #expect(try first.store.updatePreferences(deviceID: phone, patch))
        try await withAgent(first) { h, _ in
            await h.startPrintAndLetItSettle()
            await h.agentStore.drain()
            #expect(h.alerts.isEmpty, "held in the quiet hours")
            #expect(h.clock.sleepingUntil.contains(Self.end), "the agent wakes at their end")
        }
        #expect(try first.store.heldAlerts().map(\.event) == [.started])

        let second = try AgentHarness(reusing: first)
        try await withAgent(second) { h, _ in
            await h.advance(by: Self.end - h.clock.now())
            await h.handled.wait(for: .answered, count: 1)
            await h.agentStore.drain()
        }
        #expect(second.alerts.map(\.event) == [.summary])
        let body = try #require(second.alerts.first).payloadText
        #expect(body.contains(#""title":"During your quiet hours""#) && body.contains("08:00 \(AgentHarness.printer): benchy.3mf started"))
        #expect(try second.store.heldAlerts().isEmpty, "told once")
        let history = try second.store.notifications(device: phone, limit: 10).notifications
        #expect(history.map(\.event) == [.summary], "in the phone's history as any alert")
    }
}
