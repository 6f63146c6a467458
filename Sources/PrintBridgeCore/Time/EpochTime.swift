/// A moment in time as seconds since 1970-01-01T00:00:00Z.
///
/// The core keeps time as plain numbers so replay can drive it from the
/// `time_fired` of recorded events and tests from a manual clock.
public struct EpochTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) {
        self.seconds = seconds
    }

    /// Whole seconds, as APNs wants in `timestamp`, `stale-date` and friends.
    public var wholeSeconds: Int { Int(seconds.rounded(.down)) }

    public static func < (lhs: EpochTime, rhs: EpochTime) -> Bool { lhs.seconds < rhs.seconds }

    public static func + (lhs: EpochTime, rhs: Double) -> EpochTime {
        EpochTime(seconds: lhs.seconds + rhs)
    }

    public static func - (lhs: EpochTime, rhs: EpochTime) -> Double { lhs.seconds - rhs.seconds }

    /// Later than any real time: "whatever is still scheduled".
    public static let distantFuture = EpochTime(seconds: .greatestFiniteMagnitude)

    public var description: String { ISO8601.format(self) }
}
