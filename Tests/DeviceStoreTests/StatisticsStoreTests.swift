@testable import DeviceStore
import PrintBridgeCore
import Testing

/// The statistics' figures from a store of known prints: across midnight,
/// across Berlin's change to summer time (2026-03-29 01:00Z), with and
/// without material and pause readings, in Berlin's days and UTC's, and
/// after the retention rolled the oldest into daily roll-ups.
@Suite struct StatisticsStoreTests {
    /// Berlin around 2026-03-29: CET (+1 h), then CEST (+2 h) from 01:00Z.
    static let berlin = LocalClock(
        zone: "Europe/Berlin", periods: [.init(start: 0, offset: 3600), .init(start: 1_774_746_000, offset: 7200)])

    static func print(
        _ printer: String, _ start: Int, _ end: Int, _ outcome: PrintRecord.Outcome, reason: String? = nil,
        paused: Double?, materials: [MaterialUse] = []
    ) -> PrintRecord {
        PrintRecord(
            printID: "\(printer)-\(start)", printer: printer, file: "\(printer)-\(start).3mf",
            startedAt: EpochTime(seconds: Double(start)), endedAt: EpochTime(seconds: Double(end) + 0.4),
            outcome: outcome, reason: reason, totalLayers: 200, pausedSeconds: paused, materials: materials)
    }

    static let error = "print error 0300-8003"
    static let pla = MaterialUse(type: "PLA", color: "#FFFFFFFF", grams: 50, meters: 16.5)
    /// 28 Mar 22:00 CET → 29 Mar 00:30 CET (28 Mar 23:30Z): across midnight in Berlin, not in UTC.
    static let a = print("x1c", 1_774_731_600, 1_774_740_600, .complete, paused: 1800, materials: [pla])
    /// 29 Mar 12:00 → 14:00 CEST, failed, no material reported.
    static let b = print("x1c", 1_774_778_400, 1_774_785_600, .failed, reason: error, paused: 0)
    /// 30 Mar, cancelled, two spools; its pauses unknown (recorded before they were counted).
    static let c = print(
        "p1s", 1_774_857_600, 1_774_862_100, .cancelled, reason: "cancelled by the user", paused: nil,
        materials: [
            MaterialUse(type: "PETG", color: "#000000FF", grams: 10),
            MaterialUse(type: "PLA", color: "#FFFFFFFF", grams: 5),
        ])
    /// 31 Mar 22:00 CEST → 1 Apr 00:30 CEST (31 Mar 22:30Z).
    static let d = print("p1s", 1_774_987_200, 1_774_996_200, .failed, reason: error, paused: 600)

    func store() throws -> (TemporaryStore, DeviceStore) {
        let temp = TemporaryStore()
        let store = try temp.open()
        try store.commit(prints: [Self.a, Self.b])
        try store.commit(prints: [Self.c])
        try store.commit(prints: [Self.d])
        try store.commit(prints: [Self.a])  // the same end seen again after a crash: counted once
        return (temp, store)
    }

    func statistics(
        _ store: DeviceStore, printer: String? = nil, from: Int64, to: Int64, clock: LocalClock,
        bucket: Statistics.Bucket
    ) throws -> Statistics {
        Statistics(
            counts: try store.statisticsCounts(printer: printer, from: from, to: to, clock: clock),
            printer: printer, from: from, to: to, clock: clock, bucket: bucket)
    }

    @Test func berlinDaysAcrossMidnightAndTheChangeToSummerTime() throws {
        let (_, store) = try store()
        // 28 Mar 00:00 CET to 1 Apr 00:00 CEST.
        let stats = try statistics(store, from: 1_774_652_400, to: 1_774_994_400, clock: Self.berlin, bucket: .day)
        #expect(stats.series.map(\.start.description) == ["2026-03-28", "2026-03-29", "2026-03-30", "2026-03-31"])
        #expect(stats.series.map(\.tally.prints) == [0, 2, 1, 0], "a ended on the 29th in Berlin; d on 1 April")
        #expect(stats.series.map { stats.clock.format($0.startsAt) } == [
            "2026-03-28T00:00:00+01:00", "2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00",
            "2026-03-31T00:00:00+02:00",
        ])
        #expect(stats.series[1].endsAt - stats.series[1].startsAt == 23 * 3600, "the 29th is 23 hours long")
        let totals = stats.totals
        #expect((totals.prints, totals.completed, totals.failed, totals.cancelled, totals.abandoned) == (3, 1, 1, 1, 0))
        #expect(totals.successRate == 1.0 / 3)
        #expect(totals.seconds == 9000 + 7200 + 4500)
        #expect(totals.pausedSeconds == 1800, "c's pauses are unknown: all of it counts as printing")
        #expect(totals.printingSeconds == 18_900)
        #expect(totals.grams == 65)
        #expect(totals.meters == 16.5)
        #expect(stats.failures.map(\.reason) == [Self.error])
        #expect(stats.failures.map(\.count) == [1])
        #expect(stats.materials == [
            .init(type: "PLA", color: "#FFFFFFFF", grams: 55, meters: 16.5, prints: 2),
            .init(type: "PETG", color: "#000000FF", grams: 10, meters: nil, prints: 1),
        ])
        #expect(stats.longest?.printID == "x1c-1774731600")
        #expect(stats.longest?.seconds == 9000)
        #expect(stats.longest?.file == "x1c-1774731600.3mf")
        #expect(stats.series[1].tally.grams == 50 && stats.series[2].tally.grams == 15)
    }

    @Test func utcDaysPutThePrintsOnOtherDays() throws {
        let (_, store) = try store()
        let stats = try statistics(store, from: 1_774_656_000, to: 1_775_001_600, clock: .utc, bucket: .day)
        #expect(stats.series.map(\.tally.prints) == [1, 1, 1, 1])
        #expect(stats.totals.prints == 4)
        #expect(stats.failures.map(\.count) == [2])
        #expect(stats.clock.format(stats.series[0].startsAt) == "2026-03-28T00:00:00Z")
    }

    @Test func weeksBeginOnMondayAndMonthsOnTheFirst() throws {
        let (_, store) = try store()
        // 28 Mar 00:00 CET to 2 Apr 00:00 CEST: two weeks (Mon 23 and Mon 30 March), two months.
        let weeks = try statistics(store, from: 1_774_652_400, to: 1_775_080_800, clock: Self.berlin, bucket: .week)
        #expect(weeks.series.map(\.start.description) == ["2026-03-23", "2026-03-30"])
        #expect(weeks.series.map(\.tally.prints) == [2, 2])
        #expect(weeks.series[0].startsAt == 1_774_652_400, "the first week starts where the range does")
        let months = try statistics(store, from: 1_774_652_400, to: 1_775_080_800, clock: Self.berlin, bucket: .month)
        #expect(months.series.map(\.start.description) == ["2026-03-01", "2026-04-01"])
        #expect(months.series.map(\.tally.prints) == [3, 1])
        #expect(months.series.map(\.tally.failed) == [1, 1])
    }

    @Test func onePrintersFigures() throws {
        let (_, store) = try store()
        let stats = try statistics(
            store, printer: "p1s", from: 1_774_656_000, to: 1_775_001_600, clock: .utc, bucket: .day)
        #expect(stats.totals.prints == 2)
        #expect(stats.totals.cancelled == 1 && stats.totals.failed == 1)
        #expect(stats.longest?.printID == "p1s-1774987200")
        #expect(stats.materials.map(\.type) == ["PETG", "PLA"])
        let none = try statistics(store, printer: "nobody", from: 1_774_656_000, to: 1_775_001_600, clock: .utc, bucket: .day)
        #expect(none.totals.prints == 0 && none.totals.successRate == nil && none.longest == nil)
        #expect(none.series.count == 4, "empty days are shown")
    }

    /// Every printer's series comes from the hours' roll-ups (whole-hour
    /// zones), one printer's from its rows: over ranges that cut hours and
    /// days anywhere, both add up the same, in Berlin and in Kolkata (+5:30,
    /// where no hour lies in one local day and the rows are read).
    @Test func theHoursRollUpsAgreeWithThePrintsRows() throws {
        let (_, store) = try store()
        // Ends 29 Mar 18:40Z: 00:10 on the 30th in Kolkata, in the hour its midnight (18:30Z) splits.
        try store.commit(prints: [Self.print("x1c", 1_774_806_000, 1_774_809_600, .complete, paused: 0)])
        let kolkata = LocalClock(zone: "Asia/Kolkata", periods: [.init(start: 0, offset: 19_800)])
        for clock in [Self.berlin, kolkata, .utc] {
            for (from, to) in [(1_774_652_400, 1_774_994_400), (1_774_740_000, 1_774_996_201), (1_774_740_601, 1_774_785_600)] {
                let all = try statistics(store, from: Int64(from), to: Int64(to), clock: clock, bucket: .day)
                let x1c = try statistics(store, printer: "x1c", from: Int64(from), to: Int64(to), clock: clock, bucket: .day)
                let p1s = try statistics(store, printer: "p1s", from: Int64(from), to: Int64(to), clock: clock, bucket: .day)
                var sum = x1c.totals
                sum.add(p1s.totals)
                #expect(all.totals == sum, "\(clock.zone) \(from)-\(to)")
                #expect(all.series.map(\.tally.prints) == zip(x1c.series, p1s.series).map { $0.tally.prints + $1.tally.prints },
                        "\(clock.zone) \(from)-\(to)")
            }
        }
        let india = try statistics(store, from: 1_774_722_600, to: 1_774_895_400, clock: kolkata, bucket: .day)
        #expect(india.series.map(\.start.description) == ["2026-03-29", "2026-03-30"])
        #expect(india.series.map(\.tally.prints) == [2, 2], "a and b on the 29th; the 18:40Z print and c on the 30th")
        // 29 Mar 00:30 CET is a's end: a range starting a second later leaves it out.
        let later = try statistics(store, from: 1_774_740_601, to: 1_774_785_601, clock: Self.berlin, bucket: .day)
        #expect(later.totals.prints == 1 && later.totals.failed == 1)
    }

    /// The retention takes the oldest prints out of the history; their
    /// figures stay, in daily roll-ups.
    @Test func rolledUpPrintsKeepTheirFigures() throws {
        let (temp, store) = try store()
        let before = try statistics(store, from: 1_774_656_000, to: 1_775_001_600, clock: .utc, bucket: .day)
        // 30 Mar 00:00Z: a and b go.
        #expect(try store.rollUp(before: EpochTime(seconds: 1_774_828_800 + 3000)) == 2)
        #expect(try store.printHistory().map(\.printID) == ["p1s-1774987200", "p1s-1774857600"])
        #expect(try store.rollUp(before: EpochTime(seconds: 1_774_828_800)) == 0, "rolled up once")
        let after = try statistics(try temp.open(), from: 1_774_656_000, to: 1_775_001_600, clock: .utc, bucket: .day)
        #expect(after.totals == before.totals)
        #expect(after.series.map(\.tally) == before.series.map(\.tally))
        #expect(after.materials == before.materials)
        #expect(after.failures.map(\.count) == [2])
        #expect(after.longest?.printID == "x1c-1774731600")
        #expect(after.longest?.seconds == 9000)

        // A print whose end is older than the cutoff, written late, joins its day's roll-up.
        let late = Self.print(
            "x1c", 1_774_764_000, 1_774_774_800, .failed, reason: Self.error, paused: 60,
            materials: [MaterialUse(type: "PLA", color: "#FFFFFFFF", grams: 5, meters: 1)])
        try store.commit(prints: [late])
        let withLate = try statistics(store, from: 1_774_656_000, to: 1_775_001_600, clock: .utc, bucket: .day)
        #expect(withLate.series.map(\.tally.prints) == [1, 2, 1, 1])
        #expect(withLate.totals.pausedSeconds == before.totals.pausedSeconds + 60)
        #expect(withLate.failures.map(\.count) == [3])
        #expect(withLate.materials.first == .init(type: "PLA", color: "#FFFFFFFF", grams: 60, meters: 17.5, prints: 3))
        #expect(withLate.longest?.seconds == 10_800, "the late print is the longest now")
    }

    /// Rolled-up days count by the local dates asked for, west of UTC too
    /// (New York's midnight is 04:00Z), and the totals are the series' days.
    @Test func rolledUpDaysWestOfUTCAreTheDatesAsked() throws {
        let (_, store) = try store()
        #expect(try store.rollUp(before: EpochTime(seconds: 1_775_347_200)) == 4)  // 5 April
        let newYork = LocalClock(zone: "America/New_York", periods: [.init(start: 0, offset: -14_400)])
        // 28 Mar 00:00 EDT to 1 Apr 00:00 EDT.
        let stats = try statistics(store, from: 1_774_670_400, to: 1_775_016_000, clock: newYork, bucket: .day)
        #expect(stats.series.map(\.start.description) == ["2026-03-28", "2026-03-29", "2026-03-30", "2026-03-31"])
        #expect(stats.series.map(\.tally.prints) == [1, 1, 1, 1])
        #expect(stats.totals.prints == 4)
        // Three days of it: the totals hold only the days shown.
        let three = try statistics(store, from: 1_774_670_400, to: 1_774_929_600, clock: newYork, bucket: .day)
        #expect(three.series.map(\.tally.prints) == [1, 1, 1] && three.totals.prints == 3)
    }

    /// PRINT_HISTORY_DAYS: the retention is counted back from the store's clock.
    @Test func theRetentionCountsBackFromNow() throws {
        let (_, store) = try store()
        // The store's clock reads 2026-11-20: 250 days keep everything since mid-March.
        #expect(try store.rollUp(keeping: 250 * 86_400) == 0)
        #expect(try store.printHistory().count == 4)
        #expect(try store.rollUp(keeping: 200 * 86_400) == 4)
        #expect(try store.printHistory().isEmpty)
        let stats = try statistics(store, from: 1_774_656_000, to: 1_775_001_600, clock: .utc, bucket: .day)
        #expect(stats.totals.prints == 4 && stats.series.map(\.tally.prints) == [1, 1, 1, 1])
    }

    /// The print's pauses and spools so far are the printer's memory: a
    /// restart mid-print keeps them.
    @Test func aPrintsPausesAndSpoolsSurviveARestart() throws {
        let temp = TemporaryStore()
        var state = PrinterNotificationState(lastStatus: .paused, printID: "x1c-1774731600")
        state.pausedSeconds = 240
        state.pausedSince = EpochTime(seconds: 1_774_740_000.5)
        state.spoolsSeen = ["AMS 1 Tray 1": Material(type: "PLA", color: "#FFFFFFFF"), "": Material(type: "PETG")]
        try temp.open().commit(states: ["x1c": state])
        #expect(try temp.open().notificationStates()["x1c"] == state)
    }

    /// A store made by each earlier schema opens at 13 with its history
    /// kept and counted in the statistics (pauses unknown).
    @Test(arguments: 1...12) func anEarlierSchemaUpgradesWithItsHistoryCounted(version: Int) throws {
        let temp = TemporaryStore()
        let path = temp.directory + "/printbridge.sqlite3"
        var sql = StoreSchema.migrations[0..<version].joined(separator: ";\n")
        sql += ";\nINSERT INTO devices (id, apns_token, created_at, last_seen) VALUES ('d1', '\(phone)', 1, 1);"
        if version >= 5 {
            sql += """
                INSERT INTO print_history (print_id, printer_prefix, printer_name, file, started_at, ended_at, outcome,
                                           reason, progress, current_layer, total_layers)
                VALUES ('x1c-1774778400', 'x1c', 'X1C', 'b.3mf', 1774778400, 1774785600.25, 'failed', '\(Self.error)',
                        37.5, 80, 200);
                """
        }
        sql += "PRAGMA user_version = \(version);"
        #expect(sqliteExecute(path, sql))
        let store = try temp.open()
        #expect(store.schemaVersion == 14)
        #expect(try store.devices().count == 1)
        let stats = try statistics(store, from: 1_774_656_000, to: 1_775_001_600, clock: .utc, bucket: .week)
        if version >= 5 {
            let history = try store.printHistory()
            #expect(history.map(\.printID) == ["x1c-1774778400"])
            #expect(history.first?.pausedSeconds == nil && history.first?.materials == [])
            #expect(stats.totals.prints == 1 && stats.totals.failed == 1)
            #expect(stats.totals.printingSeconds == 7200)
            #expect(stats.failures.map(\.reason) == [Self.error])
        } else {
            #expect(stats.totals.prints == 0)
        }
        // And the prints after the upgrade are counted with the old.
        try store.commit(prints: [Self.a])
        #expect(try store.statisticsCounts(printer: "x1c", from: 0, to: 2_000_000_000, clock: .utc).days.values
            .reduce(0) { $0 + $1.prints } == (version >= 5 ? 2 : 1))
    }
}
