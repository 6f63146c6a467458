import CoreMetrics
import Prometheus

/// swift-metrics' factory for /metrics: whatever is made through it (the
/// agent's metrics and, once `run` bootstraps `MetricsSystem` with it, any
/// library's) is kept in one `PrometheusCollectorRegistry`, which renders
/// /metrics.
///
/// swift-prometheus' own `PrometheusMetricsFactory` registers every metric
/// without a HELP line (swift-metrics has no help text), and its registry
/// stops the process when one name is registered with two different helps.
/// So the names given a help here are registered with it, through the
/// registry's descriptor API, whoever makes them; all others go to
/// `PrometheusMetricsFactory` as they are.
public struct DescribedPrometheusFactory: MetricsFactory {
    public let registry: PrometheusCollectorRegistry
    private let prometheus: PrometheusMetricsFactory
    private let help: [String: String]

    /// - Parameters:
    ///   - help: HELP text by metric name.
    ///   - durationBuckets: a `Timer`'s histogram buckets by metric name
    ///     (others: swift-prometheus' defaults, 5 ms to 10 s).
    public init(
        registry: PrometheusCollectorRegistry, help: [String: String], durationBuckets: [String: [Duration]] = [:]
    ) {
        self.registry = registry
        self.help = help
        var prometheus = PrometheusMetricsFactory(registry: registry)
        prometheus.durationHistogramBuckets = durationBuckets
        self.prometheus = prometheus
    }

    private func descriptor(_ label: String) -> MetricNameDescriptor? {
        // An empty unit leaves the name as it is.
        help[label].map { MetricNameDescriptor(metricName: label, unitName: "", helpText: $0) }
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        guard let descriptor = descriptor(label) else { return prometheus.makeCounter(label: label, dimensions: dimensions) }
        return registry.makeCounter(descriptor: descriptor, labels: dimensions)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        guard let descriptor = descriptor(label) else {
            return prometheus.makeFloatingPointCounter(label: label, dimensions: dimensions)
        }
        return registry.makeCounter(descriptor: descriptor, labels: dimensions)
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        guard let descriptor = descriptor(label) else { return prometheus.makeMeter(label: label, dimensions: dimensions) }
        return registry.makeGauge(descriptor: descriptor, labels: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard let descriptor = descriptor(label) else {
            return prometheus.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
        }
        guard aggregate else { return registry.makeGauge(descriptor: descriptor, labels: dimensions) }
        let buckets = prometheus.valueHistogramBuckets[label] ?? prometheus.defaultValueHistogramBuckets
        return registry.makeValueHistogram(descriptor: descriptor, labels: dimensions, buckets: buckets)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        guard let descriptor = descriptor(label) else { return prometheus.makeTimer(label: label, dimensions: dimensions) }
        let buckets = prometheus.durationHistogramBuckets[label] ?? prometheus.defaultDurationHistogramBuckets
        return registry.makeDurationHistogram(descriptor: descriptor, labels: dimensions, buckets: buckets)
    }

    // The handlers are the registry's whichever way they were made.
    public func destroyCounter(_ handler: any CounterHandler) { prometheus.destroyCounter(handler) }
    public func destroyMeter(_ handler: any MeterHandler) { prometheus.destroyMeter(handler) }
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        prometheus.destroyFloatingPointCounter(handler)
    }
    public func destroyRecorder(_ handler: any RecorderHandler) { prometheus.destroyRecorder(handler) }
    public func destroyTimer(_ handler: any TimerHandler) { prometheus.destroyTimer(handler) }
}
