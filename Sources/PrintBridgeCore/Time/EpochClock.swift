import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the core gets "now" from: the system clock in the daemon, the
/// recorded `time_fired` in replay, a hand-moved clock in tests.
public protocol EpochClock: Sendable {
    func now() -> EpochTime
}

/// The real wall clock.
public struct SystemClock: EpochClock {
    public init() {}

    public func now() -> EpochTime {
        EpochTime(seconds: Date().timeIntervalSince1970)
    }
}

/// A clock that only moves when told to: replay sets it from each message,
/// tests advance it by hand.
public final class ManualClock: EpochClock {
    private let current: Mutex<EpochTime>

    public init(_ start: EpochTime = EpochTime(seconds: 0)) {
        current = Mutex(start)
    }

    public func now() -> EpochTime { current.withLock { $0 } }

    public func set(_ time: EpochTime) { current.withLock { $0 = time } }

    public func advance(by seconds: Double) { current.withLock { $0 = $0 + seconds } }
}

/// Seconds that only move forward, for intervals (a ping's timeout, a
/// reconnect's back-off, a throttle): an NTP step at boot does not move
/// them. Counted from an arbitrary start, so never a date: wall time
/// (`SystemClock`) is for what a person or a payload reads.
public struct MonotonicClock: EpochClock {
    private static let origin = ContinuousClock.now

    public init() {}

    public func now() -> EpochTime { EpochTime(seconds: Self.seconds()) }

    /// The same reading as a plain number, for measuring how long something took.
    public static func seconds() -> Double {
        let elapsed = origin.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
