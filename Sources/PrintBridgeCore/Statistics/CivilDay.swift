/// A calendar day (proleptic Gregorian) as a count of days since
/// 1970-01-01, the arithmetic the statistics' days, weeks and months need
/// without a calendar library (Howard Hinnant's `days_from_civil` and
/// `civil_from_days`, exact for every date in range).
public struct CivilDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01 (negative before).
    public var number: Int

    public init(number: Int) { self.number = number }

    public init(year: Int, month: Int, day: Int) {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        number = era * 146_097 + dayOfEra - 719_468
    }

    /// The day a local time falls on: `seconds` since the epoch, already
    /// moved by the zone's offset.
    public init(localSeconds seconds: Int64) {
        number = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    }

    public var parts: (year: Int, month: Int, day: Int) {
        let z = number + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
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
