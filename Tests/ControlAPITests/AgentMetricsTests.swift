import ControlAPI
import PrintBridgeCore
import Testing

/// /healthz's readiness rule and the push counters, on a clock moved by hand.
@Suite struct AgentMetricsTests {
    func push(_ event: Push.Event) -> Push {
        Push(
            kind: .alert, event: event, printerPrefix: "x1c", deviceID: "d", token: String(repeating: "ab", count: 32),
            tokenKind: .device, topic: "t", priority: 10, collapseID: nil, expiration: EpochTime(seconds: 0),
            payload: Array("{}".utf8), createdAt: EpochTime(seconds: 0))
    }

    @Test func readinessFollowsHomeAssistantWithAGracePeriod() {
        let clock = ManualClock(EpochTime(seconds: 1_000))
        let metrics = AgentMetrics(clock: clock, haGracePeriod: 60, apnsMode: "configured")
        #expect(metrics.health().status == 200, "starting up: within the grace period")
        clock.advance(by: 61)
        #expect(metrics.health().status == 503, "never connected for longer than the grace period")
        metrics.haConnected()
        #expect(metrics.health().status == 200)
        metrics.haDisconnected()
        clock.advance(by: 59)
        #expect(metrics.health().status == 200, "a short outage is tolerated")
        clock.advance(by: 2)
        let (status, body) = metrics.health()
        #expect(status == 503)
        #expect(body.contains(#""ha":"disconnected""#) && body.contains(#""haDisconnectedSeconds":61"#))
        metrics.haConnected()
        #expect(metrics.exposition().contains("printbridge_ha_reconnects_total 1\n"))
    }

    @Test func apnsTroubleAndTheOutboxAreReportedButDoNotMakeItUnready() {
        let clock = ManualClock()
        let metrics = AgentMetrics(clock: clock, apnsMode: "configured")
        metrics.haConnected()
        #expect(metrics.health().body.contains(#""apnsLastPush":"none""#))
        metrics.attempt(answered: true, apnsSeconds: 0.02)
        metrics.push(push(.complete), outcome: "delivered")
        #expect(metrics.health().body.contains(#""apnsLastPush":"answered""#))
        metrics.attempt(answered: false, apnsSeconds: 30)
        metrics.outbox(count: 3, oldest: clock.now())
        clock.advance(by: 95)
        let (status, body) = metrics.health()
        #expect(status == 200 && body.contains(#""apnsLastPush":"unanswered""#))
        #expect(body.contains(#""outbox":3"#) && body.contains(#""outboxOldestSeconds":95"#))
        metrics.push(push(.milestone), outcome: "expired")
        let exposition = metrics.exposition()
        #expect(exposition.contains(#"printbridge_pushes_total{type="alert",event="milestone",outcome="expired",reason=""} 1"#))
        #expect(exposition.contains("printbridge_apns_failed_attempts_total 1\n"))
        #expect(exposition.contains("printbridge_outbox_pushes 3\n"))
        #expect(exposition.contains("printbridge_outbox_oldest_age_seconds 95\n"))
        #expect(exposition.contains(#"printbridge_apns_request_duration_seconds_bucket{le="0.025"} 1"#))
        #expect(exposition.contains("printbridge_apns_request_duration_seconds_count 1\n"), "only answers are timed")
    }
}
