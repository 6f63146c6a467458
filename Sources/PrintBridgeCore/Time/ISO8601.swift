/// Parsing and formatting of the ISO 8601 timestamps HA writes
/// (`2026-11-20T14:03:11.123456+00:00`), without Foundation's formatters.
public enum ISO8601 {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`; a space may stand for `T`.
    /// Returns nil for anything else, including out-of-range fields.
    public static func parse(_ text: String) -> EpochTime? {
        var utf8 = Array(text.utf8)
        return utf8.withUnsafeMutableBufferPointer { parse(UnsafeBufferPointer($0)) }
    }

    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> EpochTime? {
        var i = 0
        func digits(_ count: Int) -> Int? {
            guard i + count <= b.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let byte = b[i]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
                i += 1
            }
            return value
        }
        func expect(_ char: UInt8) -> Bool {
            guard i < b.count, b[i] == char else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D),
            let day = digits(2)
        else { return nil }
        guard i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: " ") || b[i] == UInt8(ascii: "t")
        else { return nil }
        i += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A),
            let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            var any = false
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                fraction += Double(b[i] - 0x30) * scale
                scale /= 10
                i += 1
                any = true
            }
            guard any else { return nil }
        }
        var offsetSeconds = 0
        guard i < b.count else { return nil }  // a zone is required: naive times are ambiguous
        switch b[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let hours = digits(2) else { return nil }
            _ = expect(0x3A)
            guard let minutes = digits(2), hours < 24, minutes < 60 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let whole = days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds
        // An instant outside years 0001–9999 in UTC (year 0000, or 9999 and
        // a negative offset) has no four-digit year to be written back with.
        guard whole >= Self.earliest, whole < Self.latest else { return nil }
        return EpochTime(seconds: Double(whole) + fraction)
    }

    /// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z, in seconds since 1970.
    static let earliest = daysFromCivil(year: 1, month: 1, day: 1) * 86400
    static let latest = daysFromCivil(year: 10000, month: 1, day: 1) * 86400

    /// `2026-11-20T14:03:11.123Z`: UTC, millisecond precision.
    public static func format(_ time: EpochTime) -> String {
        let totalMillis = Int((time.seconds * 1000).rounded(.down))
        let millis = ((totalMillis % 1000) + 1000) % 1000
        let totalSeconds = (totalMillis - millis) / 1000
        let secondsOfDay = ((totalSeconds % 86400) + 86400) % 86400
        let days = (totalSeconds - secondsOfDay) / 86400
        let (year, month, day) = civilFromDays(days)
        if (0...9999).contains(year) {
            // The digits written straight into the string: a push's outcome
            // line and every log line carry a time, and building it from
            // padded pieces cost ~7,000 instructions (callgrind, replay --send).
            return String(unsafeUninitializedCapacity: 24) { text in
                var position = 0
                func put(_ value: Int, _ width: Int) {
                    var divisor = 1
                    for _ in 1..<width { divisor *= 10 }
                    while divisor > 0 {
                        text[position] = 0x30 + UInt8(value / divisor % 10)
                        position += 1
                        divisor /= 10
                    }
                }
                func mark(_ character: UInt8) {
                    text[position] = character
                    position += 1
                }
                put(year, 4); mark(0x2D); put(month, 2); mark(0x2D); put(day, 2); mark(0x54)
                put(secondsOfDay / 3600, 2); mark(0x3A); put(secondsOfDay / 60 % 60, 2); mark(0x3A)
                put(secondsOfDay % 60, 2); mark(0x2E); put(millis, 3); mark(0x5A)
                return position
            }
        }
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondsOfDay / 3600, 2)):"
            + "\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2)).\(pad(millis, 3))Z"
    }

    // Howard Hinnant's days-from-civil / civil-from-days algorithms (proleptic Gregorian).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
