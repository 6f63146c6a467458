import PrintBridgeCore
import Synchronization

/// Guessing is slow: failed authentication is counted per source (an
/// address; an IPv6 client by its /64, since one host holds a whole /64).
/// The first `freeFailures` (10) are answered 401 as usual; after that each
/// failure shuts the source out for a while, doubling from `firstDelay` (1 s)
/// to `maximumDelay` (5 min), and while it is shut out every request that
/// needs a credential (a pairing code included) is answered 429 with
/// `Retry-After` without looking at the credential. Only time forgets: a
/// source that fails no more for an hour starts afresh. A success forgets
/// nothing, or one credential of one's own would buy endless guesses at
/// others (nine wrong, one right, again); keeping a count per credential
/// presented instead would keep guesses in memory and gain nothing the
/// hour does not. At most `maximumSources` (1,024) are remembered; a new
/// one takes the place of the one whose last failure is oldest among those
/// not shut out (only when every one is shut out, of the one whose wait
/// ends first), so a flood of new addresses cannot free a guesser early and
/// memory stays bounded. Public routes (/healthz, /metrics, the pictures'
/// signed links) are never held back.
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
            if sources[source] == nil, sources.count >= maximumSources, let room = Self.leastNeeded(sources, now: now) {
                sources[room] = nil
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

    /// What failures from a client address (16 bytes, as `TrustedNetworks`
    /// makes them) count against: the IPv4 address, or an IPv6 address's
    /// /64 (`2001:db8:1:2::/64`).
    public static func source(_ peer: [UInt8]?) -> String {
        guard let peer, peer.count == 16 else { return "unknown" }
        if peer.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] || peer == TrustedNetworks.ipv6Loopback {
            return TrustedNetworks.text(peer)
        }
        return TrustedNetworks.text(Array(peer.prefix(8)) + [UInt8](repeating: 0, count: 8)) + "/64"
    }

    /// The source to forget for a new one: the stalest not shut out now;
    /// when every one is, the one whose wait ends first.
    private static func leastNeeded(_ sources: [String: Source], now: Double) -> String? {
        let free = sources.filter { $0.value.blockedUntil <= now }
        if let stalest = free.min(by: { $0.value.lastFailure < $1.value.lastFailure }) { return stalest.key }
        return sources.min(by: { $0.value.blockedUntil < $1.value.blockedUntil })?.key
    }

    /// Sources remembered (for tests and metrics).
    public var count: Int { sources.withLock { $0.count } }
}
