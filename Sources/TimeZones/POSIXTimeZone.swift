/// A POSIX TZ rule, as in a TZif file's footer (RFC 8536 §3.3): the offsets
/// of the years after the file's last transition. "CET-1CEST,M3.5.0,M10.5.0/3"
/// is +01:00, and +02:00 from the last Sunday of March at 02:00 local standard
/// time to the last Sunday of October at 03:00 local summer time.
///
/// The grammar is POSIX's `std offset [dst [offset] [,start[/time],end[/time]]]`
/// with RFC 8536's extensions: a rule's time may be negative and up to 167
/// hours ("M3.4.4/26", "M3.5.0/-1"). Names are three or more letters, or
/// quoted in angle brackets with digits and signs ("<+0330>-3:30"). Offsets
/// are written west of UTC ("EST5" is -05:00), hours 0...24, minutes and
/// seconds two digits 00...59. A rule with summer time must say when it starts
/// and ends (POSIX leaves the default to the implementation; zic always writes
/// both), and a string with anything more or less is not a rule (nil).
///
/// Which offset is in force: each year has a start and an end of summer time,
/// as UTC instants; the last of all the years' starts and ends at or before an
/// instant decides, and at one instant an end comes before a start. So an end
/// that meets the next year's start is no change: "EST5EDT,0/0,J365/25" is
/// summer time all year, as RFC 8536 §3.3.1 says (glibc and Python's zoneinfo
/// compare with the UTC year's start and end only, and give it five hours of
/// standard time after each New Year). For every rule in tzdata the two
/// readings agree. The rules repeat every 400 Gregorian years (146,097 days,
/// whole weeks too), so every instant is computed in the cycle from 1970 and
/// moved back: no arithmetic overflows anywhere in Int64.
struct POSIXTimeZone: Sendable, Equatable {
    /// The standard offset, seconds east of UTC ("CET-1": 3600).
    let standardOffset: Int
    /// Summer time, if the rule has it.
    let daylight: Daylight?
    /// Whether the offset ever changes (a rule can name summer time and never
    /// change: summer time all year, "EST5EDT,0/0,J365/25").
    private(set) var changes: Bool

    struct Daylight: Sendable, Equatable {
        /// Seconds east of UTC (the standard offset + 1 h when not written).
        let offset: Int
        /// When summer time starts, in local standard time.
        let start: Transition
        /// When it ends, in local summer time.
        let end: Transition
    }

    /// A day of the year and a time of that day (local, seconds, may be
    /// negative or past 24 h: RFC 8536 §3.3.1).
    struct Transition: Sendable, Equatable {
        enum Day: Sendable, Equatable {
            /// "Jn", 1...365: February 29 is never counted (J60 is March 1).
            case julian(Int)
            /// "n", 0...365: counting February 29 in leap years.
            case zeroBased(Int)
            /// "Mm.w.d": weekday d (0 Sunday) of week w (1...5, 5 the last) of month m.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }

        let day: Day
        /// Seconds after the day's local midnight, -167 h...167 h (02:00 when not written).
        let time: Int
    }

    /// 400 Gregorian years in seconds: the rules' period.
    static let cycle: Int64 = 146_097 * 86_400

    /// Nil for anything that is not a whole rule (see the type's comment).
    init?(_ string: String) {
        self.init(utf8: Array(string.utf8))
    }

    init?(utf8 bytes: [UInt8]) {
        var scanner = Scanner(bytes: bytes)
        guard scanner.name(), let standardWest = scanner.offset() else { return nil }
        if scanner.atEnd {
            self.init(standardOffset: -standardWest, daylight: nil)
            return
        }
        guard scanner.name() else { return nil }
        var daylightOffset = -standardWest + 3600
        if let next = scanner.peek, next == UInt8(ascii: "+") || next == UInt8(ascii: "-") || Scanner.isDigit(next) {
            guard let west = scanner.offset() else { return nil }
            daylightOffset = -west
        }
        guard scanner.take(","), let start = scanner.transition(), scanner.take(","), let end = scanner.transition(),
            scanner.atEnd
        else { return nil }
        self.init(standardOffset: -standardWest, daylight: Daylight(offset: daylightOffset, start: start, end: end))
    }

    private init(standardOffset: Int, daylight: Daylight?) {
        self.standardOffset = standardOffset
        self.daylight = daylight
        changes = true
        // Whether the offset changes at all: one cycle and a year hold every case.
        changes = daylight.map { $0.offset != standardOffset } == true && nextChangeInCycle(after: 0) != nil
    }

    /// The offset in force at `utcSeconds`, seconds east of UTC.
    func offset(at utcSeconds: Int64) -> Int {
        guard let daylight else { return standardOffset }
        return offsetInCycle(at: Self.inCycle(utcSeconds), daylight)
    }

    /// The first instant after `utcSeconds` at which the offset changes, or
    /// nil when it never does again (or that instant is past Int64).
    func nextChange(after utcSeconds: Int64) -> Int64? {
        guard changes else { return nil }
        let shifted = Self.inCycle(utcSeconds)
        guard let found = nextChangeInCycle(after: shifted) else { return nil }
        let (result, overflow) = utcSeconds.addingReportingOverflow(found - shifted)
        return overflow ? nil : result
    }

    /// The instant moved by whole cycles into [0, cycle): 1970 to 2370.
    private static func inCycle(_ seconds: Int64) -> Int64 {
        let remainder = seconds % cycle
        return remainder < 0 ? remainder + cycle : remainder
    }

    /// The offset at an instant of a few cycles around 1970 (no overflow there).
    ///
    /// Every start (or end) lies within ten days of its year (a day up to
    /// January 1 of the next year, a time of ±167 h, an offset of ±26 h), and
    /// each year's comes 358 to 373 days after the year before's. So the last
    /// start and the last end at or before an instant of year Y are those of
    /// one of the years Y - 2 ... Y + 1, and Y - 2's are before it.
    private func offsetInCycle(at seconds: Int64, _ daylight: Daylight) -> Int {
        let year = GregorianCalendar.year(containing: seconds)
        var latest = Int64.min, summer = false
        for candidateYear in (year - 2)...(year + 1) {
            let (start, end) = transitions(in: candidateYear, daylight)
            if end <= seconds && end > latest { (latest, summer) = (end, false) }
            if start <= seconds && start >= latest { (latest, summer) = (start, true) }  // a start wins a tie
        }
        return summer ? daylight.offset : standardOffset
    }

    /// That year's start and end of summer time as UTC instants.
    private func transitions(in year: Int64, _ daylight: Daylight) -> (start: Int64, end: Int64) {
        (daylight.start.local(in: year) - Int64(standardOffset), daylight.end.local(in: year) - Int64(daylight.offset))
    }

    /// The next change after `seconds` (in the first cycle): the earliest
    /// start or end after it where the offset differs from the second before.
    /// Years from the one before `seconds`'s (the earlier ones' are all
    /// before it), until the later years' (ten days before their year at the
    /// earliest) cannot be earlier; a cycle and three years at most.
    private func nextChangeInCycle(after seconds: Int64) -> Int64? {
        guard let daylight else { return nil }
        let margin: Int64 = 10 * 86_400
        var year = GregorianCalendar.year(containing: seconds) - 1
        var earliest: Int64? = nil
        for _ in 0...403 {
            let (start, end) = transitions(in: year, daylight)
            for candidate in [start, end] where candidate > seconds && candidate < (earliest ?? .max) {
                if offsetInCycle(at: candidate, daylight) != offsetInCycle(at: candidate - 1, daylight) {
                    earliest = candidate
                }
            }
            year += 1
            if let earliest, earliest < GregorianCalendar.startOfYear(year) - margin { return earliest }
        }
        return earliest
    }
}

extension POSIXTimeZone.Transition {
    /// This transition's local wall-clock instant in `year`, in seconds since
    /// 1970-01-01T00:00 of the same clock.
    func local(in year: Int64) -> Int64 {
        let yearStart = GregorianCalendar.daysFromCivil(year: year, month: 1, day: 1)
        let leap = GregorianCalendar.isLeap(year)
        let days: Int64
        switch day {
        case .julian(let n):
            days = yearStart + Int64(n - 1) + (leap && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            days = yearStart + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let first = GregorianCalendar.daysFromCivil(year: year, month: Int64(month), day: 1)
            let length = Int64(GregorianCalendar.daysInMonth(month, leap: leap))
            let firstWeekday = GregorianCalendar.weekday(days: first)
            var day = (Int64(weekday) - firstWeekday + 7) % 7 + Int64(week - 1) * 7
            while day >= length { day -= 7 }  // week 5: the last such weekday
            days = first + day
        }
        return days * 86_400 + Int64(time)
    }
}

/// The proleptic Gregorian calendar for the rules (days since 1970-01-01;
/// Howard Hinnant's civil-from-days algorithms).
enum GregorianCalendar {
    static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysInMonth(_ month: Int, leap: Bool) -> Int {
        switch month {
        case 2: leap ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// 0 Sunday ... 6 Saturday (1970-01-01 was a Thursday).
    static func weekday(days: Int64) -> Int64 {
        let remainder = (days + 4) % 7
        return remainder < 0 ? remainder + 7 : remainder
    }

    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func startOfYear(_ year: Int64) -> Int64 {
        daysFromCivil(year: year, month: 1, day: 1) * 86_400
    }

    /// The UTC year holding `seconds` (for the few cycles around 1970 the rules use).
    static func year(containing seconds: Int64) -> Int64 {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153  // 0 is March
        return yearOfEra + era * 400 + (monthIndex >= 10 ? 1 : 0)
    }
}

/// Reads a TZ string left to right; every method consumes only on success.
private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index == bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard peek == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// A zone name: three or more letters, or `<` three or more letters,
    /// digits, `+` or `-` `>`. Only its presence matters here.
    mutating func name() -> Bool {
        let begin = index
        if take("<") {
            while let byte = peek, Self.isLetter(byte) || Self.isDigit(byte) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-")
            {
                index += 1
            }
            guard index - begin - 1 >= 3, take(">") else {
                index = begin
                return false
            }
            return true
        }
        while let byte = peek, Self.isLetter(byte) { index += 1 }
        guard index - begin >= 3 else {
            index = begin
            return false
        }
        return true
    }

    /// Up to `maximumDigits` decimal digits (at least one).
    mutating func number(maximumDigits: Int) -> Int? {
        var value = 0, count = 0
        while count < maximumDigits, let byte = peek, Self.isDigit(byte) {
            value = value * 10 + Int(byte - 0x30)
            count += 1
            index += 1
        }
        return count > 0 ? value : nil
    }

    /// `[+|-]hh[:mm[:ss]]` in seconds, the hours at most `maximumHours`
    /// (`hourDigits` digits); minutes and seconds two digits, 00...59.
    mutating func duration(maximumHours: Int, hourDigits: Int) -> Int? {
        let begin = index
        let negative = take("-")
        if !negative { _ = take("+") }
        guard let hours = number(maximumDigits: hourDigits), hours <= maximumHours else {
            index = begin
            return nil
        }
        var seconds = hours * 3600
        for scale in [60, 1] {
            guard take(":") else { break }
            let start = index
            guard let value = number(maximumDigits: 2), index - start == 2, value <= 59 else {
                index = begin
                return nil
            }
            seconds += value * scale
        }
        return negative ? -seconds : seconds
    }

    /// A zone's offset, as written (west of UTC): hours 0...24.
    mutating func offset() -> Int? { duration(maximumHours: 24, hourDigits: 2) }

    /// `Jn`, `n` or `Mm.w.d`, then an optional `/time`.
    mutating func transition() -> POSIXTimeZone.Transition? {
        let begin = index
        let day: POSIXTimeZone.Transition.Day
        if take("J") {
            guard let n = number(maximumDigits: 3), (1...365).contains(n) else {
                index = begin
                return nil
            }
            day = .julian(n)
        } else if take("M") {
            guard let month = number(maximumDigits: 2), (1...12).contains(month), take("."),
                let week = number(maximumDigits: 1), (1...5).contains(week), take("."),
                let weekday = number(maximumDigits: 1), (0...6).contains(weekday)
            else {
                index = begin
                return nil
            }
            day = .monthWeekDay(month: month, week: week, weekday: weekday)
        } else {
            guard let n = number(maximumDigits: 3), (0...365).contains(n) else {
                index = begin
                return nil
            }
            day = .zeroBased(n)
        }
        var time = 7200
        if take("/") {
            guard let written = duration(maximumHours: 167, hourDigits: 3) else {
                index = begin
                return nil
            }
            time = written
        }
        return POSIXTimeZone.Transition(day: day, time: time)
    }
}
