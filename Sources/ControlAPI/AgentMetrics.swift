import CoreMetrics
import PrintBridgeCore
import Synchronization

import class Prometheus.PrometheusCollectorRegistry

/// The agent's counters and gauges, served as Prometheus text on /metrics;
/// and what /healthz and the status page say of the agent
/// (`AgentMetrics+Status.swift`). Written by the daemon loop and the push
/// tasks, read by the API thread.
///
/// The metrics are swift-metrics instruments made with an explicit factory
/// (`DescribedPrometheusFactory`, one registry per `AgentMetrics`: tests
/// make many agents in one process, and `MetricsSystem` is global and set
/// once), and /metrics is swift-prometheus' rendering of that registry.
/// `run` bootstraps `MetricsSystem` with the same `factory`, so a library that
/// reports through swift-metrics shows on /metrics too.
public final class AgentMetrics: Sendable {
    /// What /healthz and the status page read back (instruments are write-only).
    struct State {
        var haConnected = false
        var haDisconnectedSince: Double?
        var haReconnects = 0
        /// APNs as the last push found it: nil before any push.
        var apnsReachable: Bool?
        /// Pushes APNs has not yet answered for good, and when the oldest was made.
        var outboxCount = 0
        var outboxOldest: Double?
        /// The last pushes' ends, newest last, for the status page.
        var recentPushes: [RecentPush] = []
    }

    /// How many ended pushes the status page shows.
    public static let recentPushLimit = 20

    let state = Mutex(State())
    let clock: any EpochClock
    /// When HA has been away this long, /healthz says so.
    public let haGracePeriod: Double
    public let apnsMode: String

    /// What makes the instruments; for `MetricsSystem.bootstrap`.
    public let factory: DescribedPrometheusFactory
    private let haConnectedGauge: Gauge
    private let haReconnectsCounter: Counter
    private let haEvents: Counter
    private let haEventsMatched: Counter
    private let pushes: LabeledCounters
    private let apnsRequestDuration: CoreMetrics.Timer
    private let apnsFailedAttempts: Counter
    private let outboxPushes: Gauge
    private let outboxOldestAge: Gauge
    private let apnsTokenRenewals: Counter
    private let printerActions: LabeledCounters
    private let snapshots: LabeledCounters
    private let apiAuthFailures: LabeledCounters
    private let printers: Gauge
    private let devices: Gauge
    private let lastEventAge: Gauge

    /// - Parameter registry: where the metrics are kept; a new one by default.
    public init(
        clock: any EpochClock = SystemClock(), haGracePeriod: Double = 60, apnsMode: String,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
    ) {
        self.clock = clock
        self.haGracePeriod = haGracePeriod
        self.apnsMode = apnsMode
        typealias Metric = AgentMetricDescription
        let factory = DescribedPrometheusFactory(
            registry: registry, help: Dictionary(uniqueKeysWithValues: Metric.all.map { ($0.name, $0.help) }),
            durationBuckets: [Metric.apnsRequestDuration.name: Metric.apnsDurationBuckets])
        self.factory = factory
        func counter(_ metric: Metric) -> Counter { Counter(label: metric.name, factory: factory) }
        func gauge(_ metric: Metric) -> Gauge { Gauge(label: metric.name, factory: factory) }
        haConnectedGauge = gauge(.haConnected)
        haReconnectsCounter = counter(.haReconnects)
        haEvents = counter(.haEvents)
        haEventsMatched = counter(.haEventsMatched)
        pushes = LabeledCounters(.pushes, labels: ["type", "event", "outcome", "reason"], factory: factory)
        apnsRequestDuration = CoreMetrics.Timer(label: Metric.apnsRequestDuration.name, factory: factory)
        apnsFailedAttempts = counter(.apnsFailedAttempts)
        outboxPushes = gauge(.outboxPushes)
        outboxOldestAge = gauge(.outboxOldestAge)
        apnsTokenRenewals = counter(.apnsTokenRenewals)
        printerActions = LabeledCounters(.printerActions, labels: ["action", "result"], factory: factory)
        snapshots = LabeledCounters(.snapshots, labels: ["outcome", "reason"], factory: factory)
        apiAuthFailures = LabeledCounters(.apiAuthFailures, labels: ["outcome"], factory: factory)
        printers = gauge(.printers)
        devices = gauge(.devices)
        lastEventAge = gauge(.lastEventAge)
        let now = clock.now().seconds
        state.withLock { $0.haDisconnectedSince = now }
    }

    public func haConnected() {
        // The gauges are set under the state's lock, so they follow it in the same order.
        state.withLock {
            $0.haConnected = true
            $0.haDisconnectedSince = nil
            haConnectedGauge.record(1)
        }
    }

    public func haDisconnected() {
        let now = clock.now().seconds
        state.withLock {
            if $0.haConnected {
                $0.haReconnects += 1
                haReconnectsCounter.increment()
            }
            $0.haConnected = false
            if $0.haDisconnectedSince == nil { $0.haDisconnectedSince = now }
            haConnectedGauge.record(0)
        }
    }

    /// The agent's view: printers tracked and devices that receive alerts.
    public func update(printers: Int, devices: Int) {
        self.printers.record(printers)
        self.devices.record(devices)
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
    /// The source counts as their counters last took them.
    private let mirrored = Mutex(SourceCounts())

    /// Where `SourceCounts` are read from.
    public func readCounts(from source: @escaping @Sendable () -> SourceCounts) {
        sources.withLock { $0 = source }
    }

    var counts: SourceCounts { sources.withLock { $0 }() }

    /// A printer action asked through the API and how it ended (pressed, refused, does_not_fit, …).
    public func action(_ action: String, result: String) {
        printerActions.increment(action, result)
    }

    /// A picture asked for alerts: `taken`, or `none` with why (no_camera,
    /// timeout, http_503, too_large, not_an_image, …).
    public func snapshot(outcome: String, reason: String = "") {
        snapshots.increment(outcome, reason)
    }

    /// A request without a valid credential: `refused` (401) or `throttled`
    /// (429, its source shut out after too many failures).
    public func authFailure(outcome: String) {
        apiAuthFailures.increment(outcome)
    }

    /// A push's end: `outcome` delivered, rejected, expired, superseded or
    /// dry_run; limited for a background push over a phone's hourly allowance.
    public func push(_ push: Push, outcome: String, reason: String = "") {
        pushes.increment(push.kind.rawValue, push.event.rawValue, outcome, reason)
        let recent = RecentPush(
            at: clock.now(), kind: push.kind, event: push.event, printer: push.printerPrefix, device: push.shortToken,
            outcome: outcome, reason: reason)
        state.withLock {
            $0.recentPushes.append(recent)
            if $0.recentPushes.count > Self.recentPushLimit { $0.recentPushes.removeFirst() }
        }
    }

    /// One attempt at APNs: `answered` when APNs gave an HTTP answer.
    public func attempt(answered: Bool, apnsSeconds: Double) {
        state.withLock { $0.apnsReachable = answered }
        if answered { apnsRequestDuration.recordSeconds(apnsSeconds) } else { apnsFailedAttempts.increment() }
    }

    /// The outbox now: how many pushes wait for APNs's answer, and the oldest's making.
    public func outbox(count: Int, oldest: EpochTime?) {
        state.withLock {
            $0.outboxCount = count
            $0.outboxOldest = oldest?.seconds
            outboxPushes.record(count)
        }
    }

    /// The Prometheus text exposition (version 0.0.4), as swift-prometheus
    /// renders the registry. What is read rather than recorded is brought
    /// up to date first: the ages (gauges set now) and the counts kept
    /// elsewhere (their counters moved by what they moved since the last time).
    public func exposition() -> String {
        let now = clock.now().seconds
        let counts = self.counts
        let outboxOldest = state.withLock { $0.outboxOldest }
        // One scrape at a time, so that two cannot both add the same events.
        return mirrored.withLock { mirrored in
            Self.advance(haEvents, from: &mirrored.eventsReceived, to: counts.eventsReceived)
            Self.advance(haEventsMatched, from: &mirrored.eventsMatched, to: counts.eventsMatched)
            Self.advance(apnsTokenRenewals, from: &mirrored.tokenRenewals, to: counts.tokenRenewals)
            outboxOldestAge.record(outboxOldest.map { max(0, Int(now - $0)) } ?? 0)
            lastEventAge.record(counts.lastEvent > 0 ? Int(now - counts.lastEvent) : -1)
            return factory.registry.emitToString()
        }
    }

    /// Moves `counter` up to a count kept elsewhere, which only grows.
    private static func advance(_ counter: Counter, from mirrored: inout Int, to count: Int) {
        guard count > mirrored else { return }
        counter.increment(by: count - mirrored)
        mirrored = count
    }
}
