/// What the printers did over a time: the statistics of the prints that
/// ended in it, in totals and in a series of days, weeks or months of the
/// phone's time zone.
///
/// The choices (docs/BEHAVIOUR.md, "Statistics"): a print counts in the
/// day, week or month it *ended*, with all its hours; weeks begin on
/// Monday; the success rate is completed prints over all prints that ended
/// (cancelled and abandoned ones count against it), nil when none did;
/// hours printing are each print's start to end less its pauses.
public struct Statistics: Sendable {
    public enum Bucket: String, CaseIterable, Sendable {
        case day, week, month
    }

    /// Counts and sums of a set of prints.
    public struct Tally: Hashable, Sendable {
        public var prints = 0
        public var completed = 0
        public var failed = 0
        public var cancelled = 0
        public var abandoned = 0
        /// Start to end, summed; and the pauses within.
        public var seconds: Double = 0
        public var pausedSeconds: Double = 0
        /// Material by weight and length, where reported.
        public var grams: Double = 0
        public var meters: Double = 0

        public init() {}

        public var printingSeconds: Double { max(0, seconds - pausedSeconds) }
        public var successRate: Double? { prints == 0 ? nil : Double(completed) / Double(prints) }

        public mutating func add(_ other: Tally) {
            prints += other.prints
            completed += other.completed
            failed += other.failed
            cancelled += other.cancelled
            abandoned += other.abandoned
            seconds += other.seconds
            pausedSeconds += other.pausedSeconds
            grams += other.grams
            meters += other.meters
        }

        /// `count` prints of one outcome.
        public mutating func add(_ outcome: PrintRecord.Outcome, count: Int) {
            prints += count
            switch outcome {
            case .complete: completed += count
            case .failed: failed += count
            case .cancelled: cancelled += count
            case .abandoned: abandoned += count
            }
        }
    }

    /// What the store counted, by the local day the prints ended on.
    public struct Counts: Sendable {
        public var days: [CivilDay: Tally] = [:]
        public var materials: [MaterialTotal] = []
        public var failures: [(reason: String, count: Int)] = []
        public var longest: LongestPrint?
        public init() {}
    }

    public struct MaterialTotal: Hashable, Sendable {
        public var type: String?
        public var color: String?
        public var grams: Double?
        public var meters: Double?
        /// Prints that used it.
        public var prints: Int

        public init(type: String?, color: String?, grams: Double?, meters: Double?, prints: Int) {
            self.type = type
            self.color = color
            self.grams = grams
            self.meters = meters
            self.prints = prints
        }
    }

    public struct LongestPrint: Hashable, Sendable {
        public var printID: String
        public var printer: String
        public var startedAt: EpochTime
        public var endedAt: EpochTime
        public var outcome: PrintRecord.Outcome
        public var file: String?

        public init(
            printID: String, printer: String, startedAt: EpochTime, endedAt: EpochTime,
            outcome: PrintRecord.Outcome, file: String? = nil
        ) {
            self.printID = printID
            self.printer = printer
            self.startedAt = startedAt
            self.endedAt = endedAt
            self.outcome = outcome
            self.file = file
        }

        public var seconds: Double { max(0, endedAt.seconds - startedAt.seconds) }
    }

    /// One bucket of the series: its first local day, and its prints.
    public struct Period: Hashable, Sendable {
        public var start: CivilDay
        /// When it begins and ends (UTC), by the zone's clock.
        public var startsAt: Int64
        public var endsAt: Int64
        public var tally: Tally
    }

    public var printer: String?
    public var from: Int64
    public var to: Int64
    public var clock: LocalClock
    public var bucket: Bucket
    public var totals: Tally
    public var materials: [MaterialTotal]
    public var failures: [(reason: String, count: Int)]
    public var longest: LongestPrint?
    public var series: [Period]

    /// The statistics of [from, to) from the store's counts: every bucket
    /// the range touches, empty ones included (a chart shows them).
    public init(counts: Counts, printer: String?, from: Int64, to: Int64, clock: LocalClock, bucket: Bucket) {
        self.printer = printer
        self.from = from
        self.to = to
        self.clock = clock
        self.bucket = bucket
        // The totals are the series' days: nothing outside the range counts.
        let firstDay = to > from ? clock.localDay(from) : CivilDay(number: 0)
        let lastDay = to > from ? clock.localDay(to - 1) : CivilDay(number: -1)
        var totals = Tally()
        for (day, tally) in counts.days where day >= firstDay && day <= lastDay { totals.add(tally) }
        self.totals = totals
        materials = counts.materials.sorted {
            ($0.grams ?? 0, $0.meters ?? 0, $0.prints) > ($1.grams ?? 0, $1.meters ?? 0, $1.prints)
        }
        failures = counts.failures.sorted { ($0.count, $1.reason) > ($1.count, $0.reason) }
        longest = counts.longest
        var series: [Period] = []
        guard to > from else {
            self.series = []
            return
        }
        var start = Self.bucketStart(firstDay, bucket)
        while start <= lastDay {
            let next = Self.bucketStart(start, bucket, next: true)
            var tally = Tally()
            for number in max(start, firstDay).number...min(next.number - 1, lastDay.number) {
                if let day = counts.days[CivilDay(number: number)] { tally.add(day) }
            }
            series.append(Period(
                start: start, startsAt: max(from, clock.utcStart(of: start)), endsAt: min(to, clock.utcStart(of: next)),
                tally: tally))
            start = next
        }
        self.series = series
    }

    /// The first day of the bucket holding `day`, or of the one after it.
    static func bucketStart(_ day: CivilDay, _ bucket: Bucket, next: Bool = false) -> CivilDay {
        switch bucket {
        case .day: return CivilDay(number: day.number + (next ? 1 : 0))
        case .week: return CivilDay(number: day.weekStart.number + (next ? 7 : 0))
        case .month: return next ? day.nextMonthStart : day.monthStart
        }
    }

    /// The bucket a range is shown in when the request names none: days up
    /// to two months, weeks up to a year, months beyond.
    public static func defaultBucket(from: Int64, to: Int64) -> Bucket {
        let days = (to - from) / 86_400
        return days <= 62 ? .day : days <= 366 ? .week : .month
    }
}

/// A time zone's clock over a range: the UTC offset in force from each
/// instant on (the zone's rules, read by the caller: the core reads no files).
public struct LocalClock: Hashable, Sendable {
    public var zone: String
    /// Offsets (seconds east of UTC) from each start on, sorted; the first
    /// also covers any time before it.
    public var periods: [Period]

    public struct Period: Hashable, Sendable {
        public var start: Int64
        public var offset: Int

        public init(start: Int64, offset: Int) {
            self.start = start
            self.offset = offset
        }
    }

    public init(zone: String, periods: [Period]) {
        self.zone = zone
        self.periods = periods.isEmpty ? [Period(start: 0, offset: 0)] : periods.sorted { $0.start < $1.start }
    }

    public static let utc = LocalClock(zone: "UTC", periods: [])

    public func offset(at utc: Int64) -> Int {
        var offset = periods[0].offset
        for period in periods where period.start <= utc { offset = period.offset }
        return offset
    }

    public func localDay(_ utc: Int64) -> CivilDay { CivilDay(localSeconds: utc + Int64(offset(at: utc))) }

    /// When a local day begins, in UTC (its first instant: local midnight,
    /// or the first local time after it where a change skips midnight).
    public func utcStart(of day: CivilDay) -> Int64 {
        let local = Int64(day.number) * 86_400
        let guess = local - Int64(offset(at: local))
        let utc = local - Int64(offset(at: guess))
        return localDay(utc) == day ? utc : guess
    }

    /// A local time as UTC ISO 8601 with the zone's offset ("2026-11-02T00:00:00+01:00").
    public func format(_ utc: Int64) -> String {
        let offset = self.offset(at: utc)
        let local = utc + Int64(offset)
        let day = CivilDay(localSeconds: local)
        let second = Int(local - Int64(day.number) * 86_400)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        let sign = offset < 0 ? "-" : "+"
        let zone = offset == 0 ? "Z" : "\(sign)\(two(abs(offset) / 3600)):\(two(abs(offset) % 3600 / 60))"
        return "\(day)T\(two(second / 3600)):\(two(second % 3600 / 60)):\(two(second % 60))\(zone)"
    }
}
