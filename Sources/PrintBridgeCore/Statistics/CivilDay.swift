/// A calendar day (proleptic Gregorian) as a count of days since
/// 1970-01-01, the arithmetic the statistics' days, weeks and months need
/// without a calendar library (ISO8601's day arithmetic, Howard Hinnant's
/// `days_from_civil` and `civil_from_days`).
public struct CivilDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01 (negative before).
    public var number: Int

    public init(number: Int) { self.number = number }

    public init(year: Int, month: Int, day: Int) {
        number = ISO8601.daysFromCivil(year: year, month: month, day: day)
    }

    /// The day a local time falls on: `seconds` since the epoch, already
    /// moved by the zone's offset.
    public init(localSeconds seconds: Int64) {
        number = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    }

    public var parts: (year: Int, month: Int, day: Int) {
        let (year, month, day) = ISO8601.civilFromDays(number)
        return (year, month, day)
    }

    /// 1 Monday … 7 Sunday (ISO 8601); 1970-01-01 was a Thursday.
    public var weekday: Int { ((number % 7 + 7) % 7 + 3) % 7 + 1 }

    /// The Monday of this day's week (ISO weeks begin on Monday).
    public var weekStart: CivilDay { CivilDay(number: number - (weekday - 1)) }

    /// The first of this day's month.
    public var monthStart: CivilDay {
        let p = parts
        return CivilDay(year: p.year, month: p.month, day: 1)
    }

    /// The first day of the next month.
    public var nextMonthStart: CivilDay {
        let p = parts
        return p.month == 12 ? CivilDay(year: p.year + 1, month: 1, day: 1) : CivilDay(year: p.year, month: p.month + 1, day: 1)
    }

    /// "2026-11-26".
    public var description: String {
        let p = parts
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        return "\(p.year)-\(two(p.month))-\(two(p.day))"
    }

    /// A day written "YYYY-MM-DD"; nil for anything else or an impossible date.
    public static func parse(_ text: some StringProtocol) -> CivilDay? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), day >= 1
        else { return nil }
        let civil = CivilDay(year: year, month: month, day: day)
        guard civil.parts.month == month else { return nil }  // the 31st of a 30-day month, 29 February of 2026
        return civil
    }

    public static func < (lhs: CivilDay, rhs: CivilDay) -> Bool { lhs.number < rhs.number }
}
