import PrintBridgeCore
import Synchronization

/// Guessing is slow: failed authentication is counted per source address.
/// The first `freeFailures` (10) are answered 401 as usual; after that each
/// failure shuts the source out for a while, doubling from `firstDelay` (1 s)
/// to `maximumDelay` (5 min), and while it is shut out every request that
/// needs a credential is answered 429 with `Retry-After` without looking at
/// the credential. A source that fails no more for an hour starts afresh.
/// At most `maximumSources` (1,024) are remembered; a new one then takes the
/// place of the one whose last failure is oldest, so memory stays bounded
/// whatever the number of addresses. Public routes (/healthz, /metrics, the
/// pictures' signed links) are never held back.
public final class AuthThrottle: Sendable {
    public let freeFailures: Int
    public let firstDelay: Double
    public let maximumDelay: Double
    public let maximumSources: Int
    /// Seconds without a failure after which a source starts afresh.
    public let forgetAfter: Double
    private let clock: @Sendable () -> Double
    private let sources = Mutex([String: Source]())

    private struct Source {
        var failures = 0
        var blockedUntil = 0.0
        var lastFailure = 0.0
    }

    public init(
        freeFailures: Int = 10, firstDelay: Double = 1, maximumDelay: Double = 300, maximumSources: Int = 1024,
        forgetAfter: Double = 3600, clock: @escaping @Sendable () -> Double = { MonotonicClock.seconds() }
    ) {
        self.freeFailures = freeFailures
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
        self.maximumSources = maximumSources
        self.forgetAfter = forgetAfter
        self.clock = clock
    }

    /// Seconds `source` must still wait before its credentials are looked
    /// at (rounded up); nil: go ahead.
    public func waiting(_ source: String) -> Int? {
        let now = clock()
        return sources.withLock { sources in
            guard let entry = sources[source], entry.blockedUntil > now else { return nil }
            return max(1, Int((entry.blockedUntil - now).rounded(.up)))
        }
    }

    /// What a failure did.
    public struct Failure: Sendable, Hashable {
        /// Failures in a row from the source, this one included.
        public var failures: Int
        /// Seconds the source is now shut out (0: not yet).
        public var blockedFor: Double
        /// This failure shut the source out for the first time in its burst: worth one log line.
        public var startsBurst: Bool
    }

    /// Counts a failed authentication from `source`.
    @discardableResult
    public func failed(_ source: String) -> Failure {
        let now = clock()
        return sources.withLock { sources in
            var entry = sources[source] ?? Source()
            if entry.failures > 0, now - entry.lastFailure > forgetAfter { entry = Source() }
            if sources[source] == nil, sources.count >= maximumSources,
                let stalest = sources.min(by: { $0.value.lastFailure < $1.value.lastFailure })?.key
            {
                sources[stalest] = nil
            }
            entry.failures += 1
            entry.lastFailure = now
            var blockedFor = 0.0
            if entry.failures > freeFailures {
                let doublings = min(entry.failures - freeFailures - 1, 30)
                blockedFor = min(maximumDelay, firstDelay * Double(1 << doublings))
                entry.blockedUntil = now + blockedFor
            }
            sources[source] = entry
            return Failure(failures: entry.failures, blockedFor: blockedFor, startsBurst: entry.failures == freeFailures + 1)
        }
    }

    /// A source authenticated: its count starts afresh.
    public func succeeded(_ source: String) {
        sources.withLock { $0[source] = nil }
    }

    /// Sources remembered (for tests and metrics).
    public var count: Int { sources.withLock { $0.count } }
}
