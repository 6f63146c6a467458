/// How often, and how patiently, a push is tried again after a temporary
/// failure (429, 500, 503, a lost connection).
public struct RetryPolicy: Hashable, Sendable {
    /// Tries in all, the first included.
    public var maximumAttempts: Int
    /// The wait after the first failure; doubled after each further one.
    public var initialDelay: Double
    public var maximumDelay: Double

    public init(maximumAttempts: Int = 5, initialDelay: Double = 0.5, maximumDelay: Double = 30) {
        self.maximumAttempts = maximumAttempts
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait before attempt `attempt + 1`: exponential, capped, with jitter
    /// (between half and all of it) so many senders do not retry in step.
    public func delay(afterAttempt attempt: Int, random: Double) -> Double {
        var delay = initialDelay
        for _ in 1..<max(1, attempt) { delay *= 2 }
        delay = min(delay, maximumDelay)
        return delay * (0.5 + 0.5 * min(max(random, 0), 1))
    }
}
