import PrintBridgeCore
import TimeZones

#if canImport(Glibc)
import Glibc
#endif

/// What a statistics request asks for, read from `GET /api/statistics`'s
/// query or `printbridge stats`'s options, with the defaults a dashboard
/// expects: the last 30 days (today whole and the 29 before, in the zone), in
/// days up to two months, weeks up to a year, months beyond; UTC when no
/// zone is named.
public struct StatisticsRequest: Sendable {
    public var printer: String?
    public var from: Int64
    public var to: Int64
    public var bucket: Statistics.Bucket
    public var clock: LocalClock

    /// The most buckets one answer holds (ten years of weeks).
    public static let maximumBuckets = 600

    /// Reads the parts; each problem is named by its parameter.
    ///
    /// - `from`, `to`: a day ("2026-11-01": its start in the zone; for `to`,
    ///   the day is included) or an ISO 8601 time. `to` defaults to the end
    ///   of today in the zone (everything up to now counts), `from` to 30
    ///   days before `to` (a day's start in the zone).
    /// - `days`: instead of `from`, the last N days (today included).
    public static func resolve(
        printer: String?, from: String?, to: String?, days: Int? = nil, bucket: String?, zone: String?, now: EpochTime
    ) -> Result<StatisticsRequest, Problems> {
        var problems: [String: [String]] = [:]
        var rules = ZoneRules.utc
        if let zone {
            if let found = ZoneRules(identifier: zone) {
                rules = found
            } else {
                problems["tz", default: []].append(
                    "is not a time zone this machine knows (an IANA name such as Europe/Berlin)")
            }
        }
        // The zone's clock, wide enough for any day named.
        func clock(_ from: Int64, _ to: Int64) -> LocalClock {
            LocalClock(
                zone: rules.identifier,
                periods: rules.periods(from: from - 2 * 86_400, to: to + 2 * 86_400).map {
                    LocalClock.Period(start: $0.start, offset: $0.offset)
                })
        }
        if days != nil, from != nil {
            problems["days", default: []].append("and `from` both say where the range begins: give one")
        }
        let nowSeconds = Int64(now.seconds.rounded(.down))
        let around = clock(nowSeconds - 40 * 366 * 86_400, nowSeconds + 366 * 86_400)
        func time(_ name: String, _ text: String?, endOfDay: Bool) -> Int64? {
            guard let text else { return nil }
            if let day = CivilDay.parse(text) {
                let named = endOfDay ? CivilDay(number: day.number + 1) : day
                let local = Int64(named.number) * 86_400
                return clock(local - 86_400, local + 86_400).utcStart(of: named)
            }
            if let time = ISO8601.parse(text) { return Int64(time.seconds.rounded(.down)) }
            problems[name, default: []].append("must be a day (2026-11-01) or an ISO 8601 time")
            return nil
        }
        // By default today is included whole, as `to=<today>` includes it:
        // a print that ended in the current second counts at once (the
        // silent push at its end has the app ask straight away), and so does
        // one whose end Home Assistant's clock, a moment ahead, put after now.
        let end = time("to", to, endOfDay: true)
            ?? around.utcStart(of: CivilDay(number: around.localDay(nowSeconds).number + 1))
        var start: Int64
        if let days {
            guard (1...3660).contains(days) else {
                problems["days", default: []].append("must be a whole number of days from 1 to 3660")
                return .failure(Problems(byParameter: problems))
            }
            start = around.utcStart(of: CivilDay(number: around.localDay(end - 1).number - days + 1))
        } else {
            start = around.utcStart(of: CivilDay(number: around.localDay(end - 1).number - 29))
        }
        if let from = time("from", from, endOfDay: false) { start = from }
        if start >= end { problems["from", default: []].append("must be before `to`") }
        var chosen = Statistics.defaultBucket(from: start, to: end)
        if let bucket {
            if let named = Statistics.Bucket(rawValue: bucket) {
                chosen = named
            } else {
                problems["bucket", default: []].append("must be day, week or month")
            }
        }
        if let printer, printer.isEmpty || printer.utf8.count > 512 {
            problems["printer", default: []].append("must be a printer's prefix")
        }
        guard problems.isEmpty else { return .failure(Problems(byParameter: problems)) }
        let request = StatisticsRequest(
            printer: printer, from: start, to: end, bucket: chosen, clock: clock(start, end))
        let buckets = Statistics.bucketCount(from: start, to: end, clock: request.clock, bucket: chosen)
        guard buckets <= maximumBuckets else {
            problems["bucket", default: []].append(
                "gives \(buckets) \(chosen.rawValue)s over this range, more than \(maximumBuckets): ask for a longer bucket")
            return .failure(Problems(byParameter: problems))
        }
        return .success(request)
    }

    /// This machine's zone: TZ when it names one, else /etc/localtime's
    /// link into the zoneinfo tree, else /etc/timezone; nil: UTC.
    public static func machineZone() -> String? {
        if let tz = getenv("TZ").map({ String(cString: $0) }), !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            // A POSIX rule ("CET-1CEST,M3.5.0,M10.5.0/3") or a path is no zone name: the files decide.
            if ZoneRules(identifier: name) != nil { return name }
        }
        var buffer = [CChar](repeating: 0, count: 512)
        let length = readlink("/etc/localtime", &buffer, buffer.count - 1)
        if length > 0 {
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let parts = target.split(separator: "/", omittingEmptySubsequences: true)
            if let index = parts.lastIndex(of: "zoneinfo"), index + 1 < parts.count {
                let name = parts[(index + 1)...].joined(separator: "/")
                if ZoneRules(identifier: name) != nil { return name }
            }
        }
        if let file = fopen("/etc/timezone", "r") {
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 256)
            if fgets(&line, Int32(line.count), file) != nil {
                let name = String(String(cString: line).trimmingWhitespace)
                if ZoneRules(identifier: name) != nil { return name }
            }
        }
        return nil
    }

    /// What was wrong, by parameter.
    public struct Problems: Error, Sendable {
        public var byParameter: [String: [String]]

        /// One line per problem: "tz: is not a time zone …".
        public var lines: [String] {
            byParameter.sorted { $0.key < $1.key }.flatMap { name, texts in texts.map { "\(name): \($0)" } }
        }
    }
}

extension Statistics {
    /// How many buckets a range spans.
    static func bucketCount(from: Int64, to: Int64, clock: LocalClock, bucket: Bucket) -> Int {
        let first = clock.localDay(from).number
        let last = clock.localDay(to - 1).number
        switch bucket {
        case .day: return last - first + 1
        case .week: return (CivilDay(number: last).weekStart.number - CivilDay(number: first).weekStart.number) / 7 + 1
        case .month:
            let a = CivilDay(number: first).parts
            let b = CivilDay(number: last).parts
            return (b.year - a.year) * 12 + b.month - a.month + 1
        }
    }
}
