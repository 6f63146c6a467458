import CoreMetrics
import Synchronization

/// One counter with labels: a swift-metrics `Counter` for each set of label
/// values, made on first use and kept, so that counting again does not ask
/// the factory (and its registry, under its lock) for the handler each time.
/// The values are bounded by the callers (outcomes, events, APNs reasons).
final class LabeledCounters: Sendable {
    private let name: String
    private let labelNames: [String]
    private let factory: any MetricsFactory
    private let series = Mutex<[[String]: Counter]>([:])

    init(_ description: AgentMetricDescription, labels: [String], factory: any MetricsFactory) {
        name = description.name
        labelNames = labels
        self.factory = factory
    }

    /// Adds one to the series of these label values, in `labels`' order.
    func increment(_ values: String...) {
        precondition(values.count == labelNames.count, "\(name): \(labelNames.count) label values expected")
        let counter = series.withLock { series in
            if let counter = series[values] { return counter }
            let counter = Counter(label: name, dimensions: Array(zip(labelNames, values)), factory: factory)
            series[values] = counter
            return counter
        }
        counter.increment()
    }
}
