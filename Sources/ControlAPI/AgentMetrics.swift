import PrintBridgeCore
import Synchronization

/// The agent's counters and gauges, served as Prometheus text on /metrics.
/// Written by the daemon loop and the push tasks, read by the API thread.
public final class AgentMetrics: Sendable {
    private struct State {
        var haConnected = false
        var haDisconnectedSince: Double?
        var haReconnects = 0
        var pushes: [PushKey: Int] = [:]
        var apnsDurations = Histogram(bounds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
        var printers = 0
        var devices = 0
        /// APNs as the last push found it: nil before any push.
        var apnsReachable: Bool?
        /// Pushes APNs has not yet answered for good, and when the oldest was made.
        var outboxCount = 0
        var outboxOldest: Double?
        var failedAttempts = 0
        /// The last pushes' ends, newest last, for the status page.
        var recentPushes: [RecentPush] = []
        /// Printer actions asked through the API, by action and result.
        var actions: [String: Int] = [:]
        /// Pictures asked for alerts, by outcome and reason ("taken " or "none <reason>").
        var snapshots: [String: Int] = [:]
        /// Requests refused for a missing or wrong credential, or held back after too many.
        var authFailures: [String: Int] = [:]
    }

    /// How many ended pushes the status page shows.
    public static let recentPushLimit = 20

    /// One push's end as the status page shows it (token shortened).
    public struct RecentPush: Sendable, Hashable {
        public var at: EpochTime
        public var kind: Push.Kind
        public var event: Push.Event
        public var printer: String
        public var device: String
        /// delivered, rejected, expired, superseded or dry_run.
        public var outcome: String
        /// APNs's reason for a rejection, empty otherwise.
        public var reason: String
    }

    /// What the status page shows of the agent's connections and pushes.
    public struct Overview: Sendable {
        public var haConnected: Bool
        /// Seconds since the connection was lost (or since start, never connected).
        public var haAwaySeconds: Int
        public var haReconnects: Int
        public var lastEventAge: Int?
        public var apnsMode: String
        public var apnsLastPush: String
        public var outbox: Int
        /// The last pushes' ends, newest first.
        public var recentPushes: [RecentPush]
    }

    struct PushKey: Hashable, Comparable {
        var type: String
        var event: String
        var outcome: String
        var reason: String

        static func < (a: PushKey, b: PushKey) -> Bool {
            (a.type, a.event, a.outcome, a.reason) < (b.type, b.event, b.outcome, b.reason)
        }
    }

    struct Histogram {
        let bounds: [Double]
        var counts: [Int]
        var sum = 0.0
        var count = 0

        init(bounds: [Double]) {
            self.bounds = bounds
            counts = Array(repeating: 0, count: bounds.count)
        }

        mutating func observe(_ value: Double) {
            for (index, bound) in bounds.enumerated() where value <= bound { counts[index] += 1 }
            sum += value
            count += 1
        }
    }

    private let state = Mutex(State())
    private let clock: any EpochClock
    /// When HA has been away this long, /healthz says so.
    public let haGracePeriod: Double
    public let apnsMode: String

    public init(clock: any EpochClock = SystemClock(), haGracePeriod: Double = 60, apnsMode: String) {
        self.clock = clock
        self.haGracePeriod = haGracePeriod
        self.apnsMode = apnsMode
        let now = clock.now().seconds
        state.withLock { $0.haDisconnectedSince = now }
    }

    public func haConnected() {
        state.withLock {
            $0.haConnected = true
            $0.haDisconnectedSince = nil
        }
    }

    public func haDisconnected() {
        let now = clock.now().seconds
        state.withLock {
            if $0.haConnected { $0.haReconnects += 1 }
            $0.haConnected = false
            if $0.haDisconnectedSince == nil { $0.haDisconnectedSince = now }
        }
    }

    /// The agent's view: printers tracked and devices that receive alerts.
    public func update(printers: Int, devices: Int) {
        state.withLock {
            $0.printers = printers
            $0.devices = devices
        }
    }

    /// Counts kept where they happen (the HA link's, the APNs sender's),
    /// read when the metrics are asked for rather than copied in.
    public struct SourceCounts: Sendable {
        public var eventsReceived = 0
        public var eventsMatched = 0
        /// When the last event from HA arrived (seconds since 1970; 0: none yet).
        public var lastEvent = 0.0
        public var tokenRenewals = 0

        public init(eventsReceived: Int = 0, eventsMatched: Int = 0, lastEvent: Double = 0, tokenRenewals: Int = 0) {
            self.eventsReceived = eventsReceived
            self.eventsMatched = eventsMatched
            self.lastEvent = lastEvent
            self.tokenRenewals = tokenRenewals
        }
    }

    private let sources = Mutex<@Sendable () -> SourceCounts>({ SourceCounts() })

    /// Where `SourceCounts` are read from.
    public func readCounts(from source: @escaping @Sendable () -> SourceCounts) {
        sources.withLock { $0 = source }
    }

    private var counts: SourceCounts { sources.withLock { $0 }() }

    /// A printer action asked through the API and how it ended (pressed, refused, does_not_fit, …).
    public func action(_ action: String, result: String) {
        state.withLock { $0.actions["\(action) \(result)", default: 0] += 1 }
    }

    /// A picture asked for alerts: `taken`, or `none` with why (no_camera,
    /// timeout, http_503, too_large, not_an_image, …).
    public func snapshot(outcome: String, reason: String = "") {
        state.withLock { $0.snapshots["\(outcome) \(reason)", default: 0] += 1 }
    }

    /// A request without a valid credential: `refused` (401) or `throttled`
    /// (429, its source shut out after too many failures).
    public func authFailure(outcome: String) {
        state.withLock { $0.authFailures[outcome, default: 0] += 1 }
    }

    /// A push's end: `outcome` delivered, rejected, expired, superseded or
    /// dry_run; limited for a background push over a phone's hourly allowance.
    public func push(_ push: Push, outcome: String, reason: String = "") {
        let key = PushKey(type: push.kind.rawValue, event: push.event.rawValue, outcome: outcome, reason: reason)
        let recent = RecentPush(
            at: clock.now(), kind: push.kind, event: push.event, printer: push.printerPrefix, device: push.shortToken,
            outcome: outcome, reason: reason)
        state.withLock {
            $0.pushes[key, default: 0] += 1
            $0.recentPushes.append(recent)
            if $0.recentPushes.count > Self.recentPushLimit { $0.recentPushes.removeFirst() }
        }
    }

    /// The connections and the last pushes, for the status page.
    public func overview() -> Overview {
        let now = clock.now().seconds
        let lastEvent = counts.lastEvent
        return state.withLock { state in
            Overview(
                haConnected: state.haConnected,
                haAwaySeconds: state.haConnected ? 0 : Int(now - (state.haDisconnectedSince ?? now)),
                haReconnects: state.haReconnects, lastEventAge: lastEvent > 0 ? max(0, Int(now - lastEvent)) : nil,
                apnsMode: apnsMode,
                apnsLastPush: state.apnsReachable.map { $0 ? "answered" : "unanswered" } ?? "none",
                outbox: state.outboxCount, recentPushes: state.recentPushes.reversed())
        }
    }

    /// One attempt at APNs: `answered` when APNs gave an HTTP answer.
    public func attempt(answered: Bool, apnsSeconds: Double) {
        state.withLock {
            $0.apnsReachable = answered
            if answered { $0.apnsDurations.observe(apnsSeconds) } else { $0.failedAttempts += 1 }
        }
    }

    /// The outbox now: how many pushes wait for APNs's answer, and the oldest's making.
    public func outbox(count: Int, oldest: EpochTime?) {
        state.withLock {
            $0.outboxCount = count
            $0.outboxOldest = oldest?.seconds
        }
    }

    /// /healthz: 200 while HA is connected (or has been away less than the
    /// grace period), else 503; with the reason.
    public func health() -> (status: Int, body: String) {
        let now = clock.now().seconds
        return state.withLock { state in
            let away = state.haDisconnectedSince.map { now - $0 } ?? 0
            let healthy = state.haConnected || away < haGracePeriod
            let body = JSONText.object([
                ("status", JSONText.quoted(healthy ? "ok" : "unhealthy")),
                ("ha", JSONText.quoted(state.haConnected ? "connected" : "disconnected")),
                ("haDisconnectedSeconds", state.haConnected ? "0" : String(Int(away))),
                ("apns", JSONText.quoted(apnsMode)),
                ("apnsLastPush", JSONText.quoted(state.apnsReachable.map { $0 ? "answered" : "unanswered" } ?? "none")),
                ("outbox", String(state.outboxCount)),
                ("outboxOldestSeconds", String(state.outboxOldest.map { max(0, Int(now - $0)) } ?? 0)),
            ])
            return (healthy ? 200 : 503, body)
        }
    }

    /// The Prometheus text exposition (version 0.0.4).
    public func exposition() -> String {
        let now = clock.now().seconds
        let counts = self.counts
        return state.withLock { state in
            var out = ""
            func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, String)]) {
                out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
                for (labels, value) in samples { out += "\(name)\(labels) \(value)\n" }
            }
            func label(_ pairs: [(String, String)]) -> String {
                "{" + pairs.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",") + "}"
            }
            metric("printbridge_ha_connected", "gauge", "1 while connected to Home Assistant.",
                   [("", state.haConnected ? "1" : "0")])
            metric("printbridge_ha_reconnects_total", "counter", "Connections to Home Assistant lost after being up.",
                   [("", String(state.haReconnects))])
            metric("printbridge_ha_events_total", "counter", "state_changed events received from Home Assistant.",
                   [("", String(counts.eventsReceived))])
            metric("printbridge_ha_events_matched_total", "counter", "Updates of printer entities.",
                   [("", String(counts.eventsMatched))])
            metric("printbridge_pushes_total", "counter", "Pushes by type, event, outcome and APNs reason.",
                   state.pushes.sorted { $0.key < $1.key }.map { key, count in
                       (label([("type", key.type), ("event", key.event), ("outcome", key.outcome), ("reason", key.reason)]), String(count))
                   })
            var buckets: [(String, String)] = []
            for (index, bound) in state.apnsDurations.bounds.enumerated() {
                buckets.append((label([("le", String(bound))]), String(state.apnsDurations.counts[index])))
            }
            buckets.append((label([("le", "+Inf")]), String(state.apnsDurations.count)))
            out += "# HELP printbridge_apns_request_duration_seconds Time from handing a push to APNs to its outcome.\n"
            out += "# TYPE printbridge_apns_request_duration_seconds histogram\n"
            for (labels, value) in buckets { out += "printbridge_apns_request_duration_seconds_bucket\(labels) \(value)\n" }
            out += "printbridge_apns_request_duration_seconds_sum \(state.apnsDurations.sum)\n"
            out += "printbridge_apns_request_duration_seconds_count \(state.apnsDurations.count)\n"
            metric("printbridge_apns_failed_attempts_total", "counter",
                   "Attempts APNs did not answer (no connection, timeout, 429/5xx after quick retries); the push stays in the outbox.",
                   [("", String(state.failedAttempts))])
            metric("printbridge_outbox_pushes", "gauge", "Pushes waiting for APNs's final answer.",
                   [("", String(state.outboxCount))])
            metric("printbridge_outbox_oldest_age_seconds", "gauge", "Age of the oldest push in the outbox (0: empty).",
                   [("", String(state.outboxOldest.map { max(0, Int(now - $0)) } ?? 0))])
            metric("printbridge_apns_token_renewals_total", "counter", "APNs provider tokens (JWT) made.",
                   [("", String(counts.tokenRenewals))])
            metric("printbridge_printer_actions_total", "counter",
                   "Printer actions (pause, resume, stop) asked through the API, by action and result.",
                   state.actions.sorted { $0.key < $1.key }.map { key, count in
                       let parts = key.split(separator: " ", maxSplits: 1).map(String.init)
                       return (label([("action", parts[0]), ("result", parts.count > 1 ? parts[1] : "")]), String(count))
                   })
            metric("printbridge_snapshots_total", "counter",
                   "Pictures of the print asked for alerts, by outcome (taken, none) and why there was none.",
                   state.snapshots.sorted { $0.key < $1.key }.map { key, count in
                       let parts = key.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                       return (label([("outcome", parts[0]), ("reason", parts.count > 1 ? parts[1] : "")]), String(count))
                   })
            metric("printbridge_api_auth_failures_total", "counter",
                   "API requests without a valid credential: refused (401), or throttled (429) after too many from one address.",
                   state.authFailures.sorted { $0.key < $1.key }.map { (label([("outcome", $0.key)]), String($0.value)) })
            metric("printbridge_printers", "gauge", "Printers being tracked.", [("", String(state.printers))])
            metric("printbridge_devices", "gauge", "Registered devices.", [("", String(state.devices))])
            metric("printbridge_last_event_age_seconds", "gauge", "Seconds since the last event from Home Assistant (-1: none yet).",
                   [("", counts.lastEvent > 0 ? String(Int(now - counts.lastEvent)) : "-1")])
            return out
        }
    }

    private func escape(_ value: String) -> String {
        var out = ""
        for char in value {
            switch char {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(char)
            }
        }
        return out
    }
}
