import TimeZones

/// When a phone wants its alerts (issue 53), beside its switches
/// (`NotificationPreferences`): quiet hours, its own milestones, a "minutes
/// left" alert and how long a failure may go unopened before it is told
/// again. Every part is optional: a phone that never set one behaves as
/// before (the agent's `MILESTONES`, no quiet hours, no "minutes left"),
/// except the re-telling, on by default after 15 minutes.
public struct AlertSchedule: Hashable, Sendable, Codable {
    /// Quiet hours in the phone's time zone; nil: none.
    public var quietHours: QuietHours?
    /// The progress percentages this phone is told of, ascending (each
    /// 1…99); nil: the agent's `MILESTONES` setting.
    public var milestones: [Int]?
    /// "N minutes left": told once a print, when the remaining time the
    /// printer reports first reaches N minutes; nil: never.
    public var minutesLeft: Int?
    /// Minutes a failure or printer error may go unopened before it is told
    /// again, once; 0: never.
    public var retellAfterMinutes: Int

    public static let defaultRetellMinutes = 15
    /// The longest delays the API takes: a day.
    public static let maximumMinutes = 1440

    public init(
        quietHours: QuietHours? = nil, milestones: [Int]? = nil, minutesLeft: Int? = nil,
        retellAfterMinutes: Int = AlertSchedule.defaultRetellMinutes
    ) {
        self.quietHours = quietHours
        self.milestones = milestones
        self.minutesLeft = minutesLeft
        self.retellAfterMinutes = retellAfterMinutes
    }

    /// "every 10 %": 10, 20, … 90.
    public static func every(_ step: Int) -> [Int]? {
        guard (1...99).contains(step) else { return nil }
        return Array(stride(from: step, through: 99, by: step))
    }

    /// A milestone list as the API and the devices file take it: whole
    /// percentages 1…99, at most 99, returned sorted without repeats; nil
    /// when one is outside.
    public static func milestoneList(_ values: [Int]) -> [Int]? {
        guard values.count <= 99, values.allSatisfy({ (1...99).contains($0) }) else { return nil }
        return Array(Set(values)).sorted()
    }
}

/// A phone's quiet hours: from `start` to `end` (minutes after midnight in
/// `timeZone`, an IANA name; an `end` before `start` runs over midnight).
/// Alerts are held meanwhile and told as one summary at the end (docs/BEHAVIOUR.md,
/// "Quiet hours"); with `breakthrough` the time-sensitive ones
/// (`PushBuilder.isUrgent`) go at once.
public struct QuietHours: Hashable, Sendable, Codable {
    public var start: Int
    public var end: Int
    public var timeZone: String
    public var breakthrough: Bool

    public init(start: Int, end: Int, timeZone: String, breakthrough: Bool = true) {
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.breakthrough = breakthrough
    }

    /// "22:30" → 1350; nil for anything but HH:MM from 00:00 to 23:59.
    public static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
            let hours = Int(parts[0]), let minutes = Int(parts[1]), (0..<24).contains(hours), (0..<60).contains(minutes)
        else { return nil }
        return hours * 60 + minutes
    }

    /// 1350 → "22:30".
    public static func text(_ minutes: Int) -> String {
        let hours = minutes / 60, rest = minutes % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
    }

    /// The zone's rules; UTC when the machine no longer knows the name
    /// (the API accepts only names it knows).
    var rules: ZoneRules { ZoneRules(identifier: timeZone) ?? .utc }

    /// Seconds since local midnight at `time`, in the zone.
    func localSecondOfDay(_ time: EpochTime) -> Int {
        let utc = Int64(time.seconds.rounded(.down))
        let local = utc + Int64(rules.offset(at: utc))
        return Int(((local % 86_400) + 86_400) % 86_400)
    }

    /// The local time of day at `time` as "HH:MM", for the summary's lines.
    public func clockText(_ time: EpochTime) -> String {
        QuietHours.text(localSecondOfDay(time) / 60)
    }

    /// Whether `time` is within the quiet hours (start included, end not).
    public func contains(_ time: EpochTime) -> Bool {
        guard start != end else { return false }
        let minute = localSecondOfDay(time) / 60
        return start < end ? (minute >= start && minute < end) : (minute >= start || minute < end)
    }

    /// When the quiet hours that hold `time` end: the next local `end` after
    /// it (on a day the clocks change, the offset at that moment counts).
    public func endAfter(_ time: EpochTime) -> EpochTime {
        let second = localSecondOfDay(time)
        var wait = (end * 60 - second + 86_400) % 86_400
        if wait == 0 { wait = 86_400 }
        let whole = Int64(time.seconds.rounded(.down))
        var candidate = whole + Int64(wait)
        // A change of offset in between moves the local end by its size.
        let shift = rules.offset(at: whole) - rules.offset(at: candidate)
        if shift != 0, candidate + Int64(shift) > whole { candidate += Int64(shift) }
        return EpochTime(seconds: Double(candidate))
    }
}

extension Push.Event {
    /// The alerts told again when nobody opened them (issue 53): a failure
    /// and a printer error. A printer gone offline is not: it is followed
    /// by its own news (back online, or the print told as failed).
    public var isRetold: Bool {
        switch self {
        case .failed, .printerError: return true
        default: return false
        }
    }
}
