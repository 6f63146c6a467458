import ControlAPI
import CoreMetrics
import PrintBridgeCore
import Synchronization
import Testing
import TestSupport

/// /healthz's readiness rule, and /metrics as swift-prometheus renders the
/// agent's swift-metrics instruments, on a clock moved by hand.
@Suite struct AgentMetricsTests {
    func push(_ event: Push.Event, _ kind: Push.Kind = .alert) -> Push {
        Push(
            kind: kind, event: event, printerPrefix: "x1c", deviceID: "d", token: String(repeating: "ab", count: 32),
            tokenKind: .device, topic: "t", priority: 10, collapseID: nil, expiration: EpochTime(seconds: 0),
            payload: Array("{}".utf8), createdAt: EpochTime(seconds: 0))
    }

    /// Every metric /metrics has, as it had it before swift-metrics: name,
    /// TYPE, HELP (word for word) and the labels of its series.
    static let expected: [(name: String, type: String, help: String, labels: Set<String>)] = [
        ("printbridge_ha_connected", "gauge", "1 while connected to Home Assistant.", []),
        ("printbridge_ha_reconnects_total", "counter", "Connections to Home Assistant lost after being up.", []),
        ("printbridge_ha_events_total", "counter", "state_changed events received from Home Assistant.", []),
        ("printbridge_ha_events_matched_total", "counter", "Updates of printer entities.", []),
        ("printbridge_pushes_total", "counter", "Pushes by type, event, outcome and APNs reason.",
         ["type", "event", "outcome", "reason"]),
        ("printbridge_apns_request_duration_seconds", "histogram", "Time from handing a push to APNs to its outcome.", []),
        ("printbridge_apns_failed_attempts_total", "counter",
         "Attempts APNs did not answer (no connection, timeout, 429/5xx after quick retries); the push stays in the outbox.", []),
        ("printbridge_outbox_pushes", "gauge", "Pushes waiting for APNs's final answer.", []),
        ("printbridge_outbox_oldest_age_seconds", "gauge", "Age of the oldest push in the outbox (0: empty).", []),
        ("printbridge_apns_token_renewals_total", "counter", "APNs provider tokens (JWT) made.", []),
        ("printbridge_printer_actions_total", "counter",
         "Printer actions (pause, resume, stop) asked through the API, by action and result.", ["action", "result"]),
        ("printbridge_snapshots_total", "counter",
         "Pictures of the print asked for alerts, by outcome (taken, none) and why there was none.", ["outcome", "reason"]),
        ("printbridge_api_auth_failures_total", "counter",
         "API requests refused: refused (401, no valid credential), throttled (429, too many failures from one address), cross_site (403, sent by another site's page).",
         ["outcome"]),
        ("printbridge_printers", "gauge", "Printers being tracked.", []),
        ("printbridge_devices", "gauge", "Registered devices.", []),
        ("printbridge_last_event_age_seconds", "gauge", "Seconds since the last event from Home Assistant (-1: none yet).", []),
    ]

    /// An agent's metrics with every family in use, at t = 1,000,000 s.
    func populated(_ clock: ManualClock = ManualClock(EpochTime(seconds: 1_000_000))) -> AgentMetrics {
        let metrics = AgentMetrics(clock: clock, apnsMode: "configured")
        metrics.readCounts { .init(eventsReceived: 120, eventsMatched: 45, lastEvent: 999_990, tokenRenewals: 2) }
        metrics.haConnected()
        metrics.update(printers: 3, devices: 5)
        metrics.outbox(count: 2, oldest: EpochTime(seconds: 999_900))
        metrics.push(push(.complete), outcome: "delivered")
        metrics.push(push(.update, .liveActivity), outcome: "rejected", reason: "BadDeviceToken")
        metrics.attempt(answered: true, apnsSeconds: 0.02)
        metrics.attempt(answered: false, apnsSeconds: 30)
        metrics.action("pause", result: "pressed")
        metrics.snapshot(outcome: "taken")
        metrics.snapshot(outcome: "none", reason: "timeout")
        metrics.authFailure(outcome: "refused")
        return metrics
    }

    @Test func everyMetricKeepsItsNameTypeHelpAndLabels() throws {
        let text = try PrometheusText(populated().exposition())
        #expect(Set(text.families.keys) == Set(Self.expected.map(\.name)), "no more, no fewer")
        for metric in Self.expected {
            let family = try #require(text.families[metric.name], "\(metric.name)")
            #expect(family.type == metric.type, "\(metric.name)")
            #expect(family.help == metric.help, "\(metric.name)")
            #expect(!family.samples.isEmpty, "\(metric.name)")
            for sample in family.samples {
                let labels = Set(sample.labels.keys).subtracting(sample.name.hasSuffix("_bucket") ? ["le"] : [])
                #expect(labels == metric.labels, "\(sample)")
            }
        }
    }

    @Test func theValuesAreWhatTheAgentDid() throws {
        let text = try PrometheusText(populated().exposition())
        #expect(text.value("printbridge_ha_connected") == 1)
        #expect(text.value("printbridge_ha_reconnects_total") == 0)
        #expect(text.value("printbridge_ha_events_total") == 120)
        #expect(text.value("printbridge_ha_events_matched_total") == 45)
        #expect(text.value("printbridge_apns_token_renewals_total") == 2)
        #expect(text.value(
            "printbridge_pushes_total", ["type": "alert", "event": "complete", "outcome": "delivered", "reason": ""]) == 1)
        #expect(text.value(
            "printbridge_pushes_total",
            ["type": "liveactivity", "event": "update", "outcome": "rejected", "reason": "BadDeviceToken"]) == 1)
        #expect(text.families["printbridge_pushes_total"]?.samples.count == 2)
        #expect(text.value("printbridge_apns_failed_attempts_total") == 1)
        #expect(text.value("printbridge_outbox_pushes") == 2)
        #expect(text.value("printbridge_outbox_oldest_age_seconds") == 100)
        #expect(text.value("printbridge_printer_actions_total", ["action": "pause", "result": "pressed"]) == 1)
        #expect(text.value("printbridge_snapshots_total", ["outcome": "taken", "reason": ""]) == 1)
        #expect(text.value("printbridge_snapshots_total", ["outcome": "none", "reason": "timeout"]) == 1)
        #expect(text.value("printbridge_api_auth_failures_total", ["outcome": "refused"]) == 1)
        #expect(text.value("printbridge_printers") == 3)
        #expect(text.value("printbridge_devices") == 5)
        #expect(text.value("printbridge_last_event_age_seconds") == 10)
        // The histogram's buckets as before: 5 ms to 10 s, only answers timed.
        let buckets = text.families["printbridge_apns_request_duration_seconds"]?.samples
            .filter { $0.name.hasSuffix("_bucket") }.map { ($0.labels["le"] ?? "?", $0.value) } ?? []
        #expect(buckets.map(\.0) == ["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1.0", "2.5", "5.0", "10.0", "+Inf"])
        #expect(buckets.map(\.1) == [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
        #expect(text.value("printbridge_apns_request_duration_seconds_count") == 1)
        #expect(text.value("printbridge_apns_request_duration_seconds_sum") == 0.02)
    }

    @Test func promtoolFindsNothingToSay() throws {
        let exposition = populated().exposition()
        let check = try PrometheusText.promtool(exposition)
        #expect(check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty,
                "promtool (Debian's prometheus package; scripts/install-test-deps.sh installs it) said \(check.status): \(check.stdout)\(check.stderr)\n\(exposition)")
        // It does find fault where there is some: this check can fail.
        let broken = try PrometheusText.promtool(exposition.replacingOccurrences(of: "# HELP printbridge_devices", with: "# HELPLESS"))
        #expect(broken.status != 0 && broken.stderr.contains("printbridge_devices no help text"), "\(broken)")
    }

    @Test func countsKeptElsewhereAreCountedOnceWhateverTheScrapes() throws {
        let source = Mutex(AgentMetrics.SourceCounts())
        let metrics = AgentMetrics(clock: ManualClock(EpochTime(seconds: 1_000)), apnsMode: "configured")
        metrics.readCounts { source.withLock { $0 } }
        #expect(try PrometheusText(metrics.exposition()).value("printbridge_ha_events_total") == 0)
        #expect(try PrometheusText(metrics.exposition()).value("printbridge_last_event_age_seconds") == -1, "none yet")
        source.withLock { $0 = .init(eventsReceived: 7, eventsMatched: 3, lastEvent: 990, tokenRenewals: 1) }
        for _ in 0..<3 {
            let text = try PrometheusText(metrics.exposition())
            #expect(text.value("printbridge_ha_events_total") == 7)
            #expect(text.value("printbridge_ha_events_matched_total") == 3)
            #expect(text.value("printbridge_apns_token_renewals_total") == 1)
            #expect(text.value("printbridge_last_event_age_seconds") == 10)
        }
        source.withLock { $0.eventsReceived = 1_000_000 }
        #expect(try PrometheusText(metrics.exposition()).value("printbridge_ha_events_total") == 1_000_000)
    }

    /// What `run` bootstraps `MetricsSystem` with: a library's metric made
    /// through swift-metrics' global API (bound here to this task, as
    /// `MetricsSystem.bootstrap` can be called once per process) shows on
    /// /metrics beside the agent's; one of the agent's names made that way
    /// is the agent's metric, with its help.
    @Test func aLibraryReportingThroughSwiftMetricsShowsOnMetrics() throws {
        let metrics = AgentMetrics(apnsMode: "configured")
        withMetricsFactory(metrics.factory) {
            Counter(label: "library_requests_total", dimensions: [("method", "GET")]).increment(by: 3)
            CoreMetrics.Timer(label: "library_request_duration_seconds").recordMilliseconds(30)
            Counter(label: "printbridge_api_auth_failures_total", dimensions: [("outcome", "refused")]).increment()
        }
        metrics.authFailure(outcome: "refused")
        let text = try PrometheusText(metrics.exposition())
        #expect(text.families["library_requests_total"]?.type == "counter")
        #expect(text.families["library_requests_total"]?.help == nil, "swift-metrics has no help text")
        #expect(text.value("library_requests_total", ["method": "GET"]) == 3)
        #expect(text.families["library_request_duration_seconds"]?.type == "histogram")
        #expect(text.value("library_request_duration_seconds_bucket", ["le": "0.05"]) == 1)
        #expect(text.value("printbridge_api_auth_failures_total", ["outcome": "refused"]) == 2, "one series, both counts")
        #expect(text.families["printbridge_api_auth_failures_total"]?.help == Self.expected.first { $0.name == "printbridge_api_auth_failures_total" }?.help)
        // Another agent's registry has none of it.
        #expect(try PrometheusText(AgentMetrics(apnsMode: "configured").exposition()).families["library_requests_total"] == nil)
    }

    @Test func readinessFollowsHomeAssistantWithAGracePeriod() throws {
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
        #expect(try PrometheusText(metrics.exposition()).value("printbridge_ha_connected") == 0)
        metrics.haConnected()
        let text = try PrometheusText(metrics.exposition())
        #expect(text.value("printbridge_ha_reconnects_total") == 1)
        #expect(text.value("printbridge_ha_connected") == 1)
    }

    @Test func apnsTroubleAndTheOutboxAreReportedButDoNotMakeItUnready() throws {
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
        let text = try PrometheusText(exposition)
        #expect(text.value("printbridge_apns_failed_attempts_total") == 1)
        #expect(text.value("printbridge_outbox_pushes") == 3)
        #expect(text.value("printbridge_outbox_oldest_age_seconds") == 95)
        #expect(text.value("printbridge_apns_request_duration_seconds_bucket", ["le": "0.025"]) == 1)
        #expect(text.value("printbridge_apns_request_duration_seconds_count") == 1, "only answers are timed")
    }
}
