/// The agent's metrics as /metrics shows them: a name and its HELP line each.
/// swift-metrics has no place for help text, so `DescribedPrometheusFactory`
/// looks it up here by name when the instrument is made.
public struct AgentMetricDescription: Sendable, Hashable {
    public let name: String
    public let help: String
}

extension AgentMetricDescription {
    static let haConnected = Self(
        name: "printbridge_ha_connected", help: "1 while connected to Home Assistant.")
    static let haReconnects = Self(
        name: "printbridge_ha_reconnects_total", help: "Connections to Home Assistant lost after being up.")
    static let haEvents = Self(
        name: "printbridge_ha_events_total", help: "state_changed events received from Home Assistant.")
    static let haEventsMatched = Self(
        name: "printbridge_ha_events_matched_total", help: "Updates of printer entities.")
    /// Labels: type, event, outcome, reason.
    static let pushes = Self(
        name: "printbridge_pushes_total", help: "Pushes by type, event, outcome and APNs reason.")
    static let apnsRequestDuration = Self(
        name: "printbridge_apns_request_duration_seconds", help: "Time from handing a push to APNs to its outcome.")
    static let apnsFailedAttempts = Self(
        name: "printbridge_apns_failed_attempts_total",
        help: "Attempts APNs did not answer (no connection, timeout, 429/5xx after quick retries); the push stays in the outbox.")
    static let outboxPushes = Self(
        name: "printbridge_outbox_pushes", help: "Pushes waiting for APNs's final answer.")
    static let outboxOldestAge = Self(
        name: "printbridge_outbox_oldest_age_seconds", help: "Age of the oldest push in the outbox (0: empty).")
    static let apnsTokenRenewals = Self(
        name: "printbridge_apns_token_renewals_total", help: "APNs provider tokens (JWT) made.")
    /// Labels: action, result.
    static let printerActions = Self(
        name: "printbridge_printer_actions_total",
        help: "Printer actions (pause, resume, stop) asked through the API, by action and result.")
    /// Labels: outcome, reason.
    static let snapshots = Self(
        name: "printbridge_snapshots_total",
        help: "Pictures of the print asked for alerts, by outcome (taken, none) and why there was none.")
    /// Labels: outcome.
    static let apiAuthFailures = Self(
        name: "printbridge_api_auth_failures_total",
        help: "API requests refused: refused (401, no valid credential), throttled (429, too many failures from one address), cross_site (403, sent by another site's page).")
    static let printers = Self(name: "printbridge_printers", help: "Printers being tracked.")
    static let devices = Self(name: "printbridge_devices", help: "Registered devices.")
    static let lastEventAge = Self(
        name: "printbridge_last_event_age_seconds", help: "Seconds since the last event from Home Assistant (-1: none yet).")

    /// Every one of them.
    public static let all: [Self] = [
        haConnected, haReconnects, haEvents, haEventsMatched, pushes, apnsRequestDuration, apnsFailedAttempts,
        outboxPushes, outboxOldestAge, apnsTokenRenewals, printerActions, snapshots, apiAuthFailures, printers,
        devices, lastEventAge,
    ]

    /// The APNs request duration's histogram buckets (upper bounds).
    static let apnsDurationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]
}
