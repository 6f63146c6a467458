import Testing
@testable import PrintBridgeCore

/// The calendar arithmetic behind the statistics' days, weeks and months,
/// and a zone's clock over a change of offset.
@Suite struct CivilDayTests {
    @Test func daysWeekdaysWeeksAndMonths() {
        let day = CivilDay(year: 2026, month: 3, day: 29)
        #expect(day.number == 20_541 && day.description == "2026-03-29")
        #expect(day.weekday == 7, "a Sunday")
        #expect(day.weekStart.description == "2026-03-23")
        #expect(CivilDay(year: 2026, month: 3, day: 30).weekStart.description == "2026-03-30", "a Monday is its own week's start")
        #expect(day.monthStart.description == "2026-03-01" && day.nextMonthStart.description == "2026-04-01")
        #expect(CivilDay(year: 2026, month: 12, day: 31).nextMonthStart.description == "2027-01-01")
        #expect(CivilDay(number: 0).description == "1970-01-01" && CivilDay(number: 0).weekday == 4)
        #expect(CivilDay(localSeconds: -1).description == "1969-12-31")
    }

    @Test func onlyRealDaysParse() {
        #expect(CivilDay.parse("2028-02-29")?.description == "2028-02-29")
        for bad in ["2026-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-1-01", "26-01-01", "2026-01-01T00:00", "", "yesterday"] {
            #expect(CivilDay.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func aClockAcrossTheChangeToSummerTime() {
        let berlin = LocalClock(zone: "Europe/Berlin", periods: [.init(start: 0, offset: 3600), .init(start: 1_774_746_000, offset: 7200)])
        let sunday = CivilDay(year: 2026, month: 3, day: 29)
        #expect(berlin.utcStart(of: sunday) == 1_774_738_800, "midnight CET")
        #expect(berlin.utcStart(of: CivilDay(number: sunday.number + 1)) == 1_774_821_600, "midnight CEST: the day had 23 hours")
        #expect(berlin.localDay(1_774_745_999) == sunday && berlin.localDay(1_774_821_599) == sunday)
        #expect(berlin.format(1_774_746_000) == "2026-03-29T03:00:00+02:00")
        #expect(LocalClock(zone: "Asia/Kolkata", periods: [.init(start: 0, offset: 19_800)]).format(0) == "1970-01-01T05:30:00+05:30")
        #expect(LocalClock.utc.format(86_399) == "1970-01-01T23:59:59Z")
    }

    @Test func defaultBucketsByTheRangesLength() {
        #expect(Statistics.defaultBucket(from: 0, to: 62 * 86_400) == .day)
        #expect(Statistics.defaultBucket(from: 0, to: 63 * 86_400) == .week)
        #expect(Statistics.defaultBucket(from: 0, to: 366 * 86_400) == .week)
        #expect(Statistics.defaultBucket(from: 0, to: 367 * 86_400) == .month)
    }
}
