import PrintBridgeCore

/// Statistics: every print that ended, kept as a compact row (schema 13),
/// counted by the local day it ended on for `Statistics`; and the daily
/// roll-ups that keep the figures of prints the retention takes out.
extension DeviceStore {
    /// The outcomes as the statistics tables number them.
    static let outcomeNumbers: [PrintRecord.Outcome: Int] = [.complete: 0, .failed: 1, .cancelled: 2, .abandoned: 3]
    static let outcomes: [PrintRecord.Outcome] = [.complete, .failed, .cancelled, .abandoned]

    enum NameKind: Int {
        case printer = 0, reason = 1, material = 2
    }

    /// The id of a printer, reason or material in `stats_names`, made on first use.
    func nameID(_ kind: NameKind, _ name: String) throws(SQLiteDatabase.Error) -> Int {
        try database.query(
            "INSERT INTO stats_names (kind, name) VALUES (?, ?) ON CONFLICT (kind, name) DO NOTHING",
            [.integer(kind.rawValue), .text(name)])
        var id = 0
        try database.query("SELECT id FROM stats_names WHERE kind = ? AND name = ?", [.integer(kind.rawValue), .text(name)]) {
            id = $0.integer(0)
        }
        return id
    }

    /// A material's name in `stats_names`: type and colour, "" for none.
    static func materialName(_ use: MaterialUse) -> String { "\(use.type ?? "")\u{1F}\(use.color ?? "")" }

    static func material(named name: String) -> (type: String?, color: String?) {
        let parts = name.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
        func part(_ i: Int) -> String? { i < parts.count && !parts[i].isEmpty ? parts[i] : nil }
        return (part(0), part(1))
    }

    /// One ended print's row and its material (inside the caller's
    /// transaction), and its UTC day's roll-ups made again from the day's
    /// rows. Saved again (the same change after a crash), it replaces the
    /// first. A print that ended before the retention's cutoff (a late
    /// record) is added to its day's roll-ups only.
    func writeStatistics(_ record: PrintRecord) throws(SQLiteDatabase.Error) {
        let printer = try nameID(.printer, record.printer)
        let started = Int(record.startedAt.seconds.rounded(.down))
        let ended = max(started, Int(record.endedAt.seconds.rounded(.down)))
        let outcome = Self.outcomeNumbers[record.outcome]!
        let reason = try record.reason.map { reason throws(SQLiteDatabase.Error) in try nameID(.reason, reason) }
        var materials: [(id: Int, use: MaterialUse)] = []
        for use in record.materials { materials.append((try nameID(.material, Self.materialName(use)), use)) }
        func sum(_ values: [Double?]) -> SQLiteDatabase.Value {
            let known = values.compactMap { $0 }
            return known.isEmpty ? .null : .real(known.reduce(0, +))
        }
        if Int64(ended) < (try rolledUpBefore()) {
            try addLate(
                printer: printer, started: started, ended: ended, outcome: outcome, paused: record.pausedSeconds,
                reason: reason, materials: materials)
            return
        }
        var previousEnd: Int?
        try database.query(
            "SELECT ended_at FROM print_stats WHERE printer = ? AND started_at = ?", [.integer(printer), .integer(started)]
        ) { previousEnd = $0.integer(0) }
        if let previousEnd {
            let key: [SQLiteDatabase.Value] = [.integer(previousEnd), .integer(printer), .integer(started)]
            try database.query("DELETE FROM print_stats WHERE ended_at = ? AND printer = ? AND started_at = ?", key)
            try database.query("DELETE FROM print_material WHERE ended_at = ? AND printer = ? AND started_at = ?", key)
        }
        try database.query("""
            INSERT INTO print_stats (ended_at, printer, started_at, outcome, paused, layers, reason, grams, meters)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [
                .integer(ended), .integer(printer), .integer(started), .integer(outcome),
                record.pausedSeconds.map { .integer(Int($0.rounded())) } ?? .null,
                record.totalLayers.map(SQLiteDatabase.Value.integer) ?? .null,
                reason.map(SQLiteDatabase.Value.integer) ?? .null,
                sum(record.materials.map(\.grams)), sum(record.materials.map(\.meters)),
            ])
        for (slot, material) in materials.enumerated() {
            try database.query("""
                INSERT INTO print_material (ended_at, printer, started_at, slot, material, grams, meters)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [
                    .integer(ended), .integer(printer), .integer(started), .integer(slot), .integer(material.id),
                    material.use.grams.map(SQLiteDatabase.Value.real) ?? .null,
                    material.use.meters.map(SQLiteDatabase.Value.real) ?? .null,
                ])
        }
        try rollUpDay(ended / 86_400, printer: printer)
        try rollUpHour(ended / 3600)
        if let previousEnd, previousEnd / 86_400 != ended / 86_400 { try rollUpDay(previousEnd / 86_400, printer: printer) }
        if let previousEnd, previousEnd / 3600 != ended / 3600 { try rollUpHour(previousEnd / 3600) }
    }

    /// Every printer's UTC hour in `print_hours`, made again from its rows.
    private func rollUpHour(_ hour: Int) throws(SQLiteDatabase.Error) {
        try database.query("DELETE FROM print_hours WHERE hour = ?", [.integer(hour)])
        try database.query("""
            INSERT INTO print_hours (hour, outcome, prints, seconds, paused, grams, meters)
            SELECT ?, outcome, count(*), sum(ended_at - started_at), sum(coalesce(paused, 0)), coalesce(sum(grams), 0),
                   coalesce(sum(meters), 0)
            FROM print_stats WHERE ended_at >= ? AND ended_at < ? GROUP BY outcome
            """, [.integer(hour), .integer(hour * 3600), .integer(hour * 3600 + 3600)])
    }

    /// One printer's UTC day in the roll-ups, made again from its rows
    /// (a day holds a few hundred prints at most: cheap, and right however
    /// often a print is saved).
    private func rollUpDay(_ day: Int, printer: Int) throws(SQLiteDatabase.Error) {
        let key: [SQLiteDatabase.Value] = [.integer(day), .integer(printer)]
        let range: [SQLiteDatabase.Value] = [.integer(day), .integer(day * 86_400), .integer(day * 86_400 + 86_400), .integer(printer)]
        for table in ["print_days", "print_day_reasons", "print_day_material", "print_day_longest"] {
            try database.query("DELETE FROM \(table) WHERE day = ? AND printer = ?", key)
        }
        try database.query("""
            INSERT INTO print_days (day, printer, outcome, prints, seconds, paused)
            SELECT ?, printer, outcome, count(*), sum(ended_at - started_at), sum(coalesce(paused, 0))
            FROM print_stats WHERE ended_at >= ? AND ended_at < ? AND +printer = ? GROUP BY outcome
            """, range)
        try database.query("""
            INSERT INTO print_day_reasons (day, printer, reason, prints)
            SELECT ?, printer, reason, count(*) FROM print_stats
            WHERE ended_at >= ? AND ended_at < ? AND +printer = ? AND outcome = 1 AND reason IS NOT NULL GROUP BY reason
            """, range)
        try database.query("""
            INSERT INTO print_day_material (day, printer, material, grams, meters, prints)
            SELECT ?, printer, material, sum(grams), sum(meters), count(DISTINCT started_at)
            FROM print_material WHERE ended_at >= ? AND ended_at < ? AND +printer = ? GROUP BY material
            """, range)
        try database.query("""
            INSERT INTO print_day_longest (day, printer, started_at, ended_at, outcome)
            SELECT ?, printer, started_at, ended_at, outcome FROM print_stats
            WHERE ended_at >= ? AND ended_at < ? AND +printer = ? ORDER BY ended_at - started_at DESC LIMIT 1
            """, range)
    }

    /// A print that ended before the retention's cutoff: added to its day's
    /// roll-ups (whose rows are gone), not kept one by one.
    private func addLate(
        printer: Int, started: Int, ended: Int, outcome: Int, paused: Double?, reason: Int?,
        materials: [(id: Int, use: MaterialUse)]
    ) throws(SQLiteDatabase.Error) {
        let day = ended / 86_400
        try database.query("""
            INSERT INTO print_hours (hour, outcome, prints, seconds, paused, grams, meters) VALUES (?, ?, 1, ?, ?, ?, ?)
            ON CONFLICT (hour, outcome) DO UPDATE SET prints = prints + 1, seconds = seconds + excluded.seconds,
                paused = paused + excluded.paused, grams = grams + excluded.grams, meters = meters + excluded.meters
            """, [
                .integer(ended / 3600), .integer(outcome), .integer(ended - started), .integer(Int((paused ?? 0).rounded())),
                .real(materials.compactMap(\.use.grams).reduce(0, +)), .real(materials.compactMap(\.use.meters).reduce(0, +)),
            ])
        try database.query("""
            INSERT INTO print_days (day, printer, outcome, prints, seconds, paused) VALUES (?, ?, ?, 1, ?, ?)
            ON CONFLICT (day, printer, outcome) DO UPDATE SET prints = prints + 1, seconds = seconds + excluded.seconds,
                paused = paused + excluded.paused
            """, [.integer(day), .integer(printer), .integer(outcome), .integer(ended - started),
                  .integer(Int((paused ?? 0).rounded()))])
        if outcome == 1, let reason {
            try database.query("""
                INSERT INTO print_day_reasons (day, printer, reason, prints) VALUES (?, ?, ?, 1)
                ON CONFLICT (day, printer, reason) DO UPDATE SET prints = prints + 1
                """, [.integer(day), .integer(printer), .integer(reason)])
        }
        for material in materials {
            try database.query("""
                INSERT INTO print_day_material (day, printer, material, grams, meters, prints) VALUES (?, ?, ?, ?, ?, 1)
                ON CONFLICT (day, printer, material) DO UPDATE SET
                    grams = CASE WHEN grams IS NULL AND excluded.grams IS NULL THEN NULL
                                 ELSE coalesce(grams, 0) + coalesce(excluded.grams, 0) END,
                    meters = CASE WHEN meters IS NULL AND excluded.meters IS NULL THEN NULL
                                  ELSE coalesce(meters, 0) + coalesce(excluded.meters, 0) END,
                    prints = prints + 1
                """, [.integer(day), .integer(printer), .integer(material.id),
                      material.use.grams.map(SQLiteDatabase.Value.real) ?? .null,
                      material.use.meters.map(SQLiteDatabase.Value.real) ?? .null])
        }
        try database.query("""
            INSERT INTO print_day_longest (day, printer, started_at, ended_at, outcome) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (day, printer) DO UPDATE SET started_at = excluded.started_at, ended_at = excluded.ended_at,
                outcome = excluded.outcome WHERE excluded.ended_at - excluded.started_at > ended_at - started_at
            """, [.integer(day), .integer(printer), .integer(started), .integer(ended), .integer(outcome)])
    }

    /// What the prints that ended in [from, to) add up to, by the local day
    /// they ended on (`clock`); one printer's, or every printer's when nil.
    /// Days whose prints were rolled up (the retention) count by their UTC day.
    ///
    /// Fast at scale (a year of a 10-printer farm is 73,000 rows): the
    /// series reads each print's row once, in end order, without SQL
    /// grouping (a sorter costs several times a row's read), and folds it
    /// into its local day here; the material, failures and longest print
    /// come from the UTC days' roll-ups, with only the range's two partial
    /// UTC days read from the rows.
    public func statisticsCounts(printer: String?, from: Int64, to: Int64, clock: LocalClock) throws(Error)
        -> Statistics.Counts
    {
        try run { () throws(SQLiteDatabase.Error) in
            var counts = Statistics.Counts()
            guard to > from else { return counts }
            // One snapshot of the store for every statement (the agent may write meanwhile).
            try database.query("BEGIN")
            defer { try? database.query("COMMIT") }
            var printerID: Int?
            if let printer {
                try database.query("SELECT id FROM stats_names WHERE kind = 0 AND name = ?", [.text(printer)]) {
                    printerID = $0.integer(0)
                }
                guard printerID != nil else { return counts }
            }
            let cutoff = try rolledUpBefore()
            let rolledEnd = min(to, cutoff)
            if from < rolledEnd {
                // Rolled-up days: UTC days, counted by their date as the local
                // dates asked for (west of UTC a local midnight is after UTC's).
                let firstDay = clock.localDay(from).number
                let endDay = min(clock.localDay(rolledEnd - 1).number + 1, Int(cutoff / 86_400))
                try countDaySeries(into: &counts, printer: printerID, firstDay: firstDay, endDay: endDay)
                try countDayTables(into: &counts, printer: printerID, firstDay: firstDay, endDay: endDay)
            }
            let start = max(from, cutoff)
            guard start < to else { return counts }
            // Every printer's: the hours' roll-ups, the partial hours at the ends from the rows.
            let firstHour = (start + 3599) / 3600, endHour = to / 3600
            if printerID == nil, firstHour < endHour {
                try countHours(into: &counts, firstHour: firstHour, endHour: endHour, clock: clock)
                try countSeries(into: &counts, printer: nil, from: start, to: firstHour * 3600, clock: clock)
                try countSeries(into: &counts, printer: nil, from: endHour * 3600, to: to, clock: clock)
            } else {
                try countSeries(into: &counts, printer: printerID, from: start, to: to, clock: clock)
            }
            // Whole UTC days inside from their roll-ups; the partial days at the ends from the rows.
            let firstWhole = Int((start + 86_399) / 86_400), endWhole = Int(to / 86_400)
            if firstWhole < endWhole {
                try countDayTables(into: &counts, printer: printerID, firstDay: firstWhole, endDay: endWhole)
                try countRows(into: &counts, printer: printerID, from: start, to: Int64(firstWhole) * 86_400)
                try countRows(into: &counts, printer: printerID, from: Int64(endWhole) * 86_400, to: to)
            } else {
                try countRows(into: &counts, printer: printerID, from: start, to: to)
            }
            if let longest = counts.longest, longest.file == nil {
                try database.query("SELECT file FROM print_history WHERE print_id = ?", [.text(longest.printID)]) {
                    counts.longest?.file = $0.text(0)
                }
            }
            return counts
        }
    }

    /// The series and totals of every printer from the hours' roll-ups: an
    /// hour wholly in one local day counts there; one that a local midnight
    /// splits (a zone whose offset is not whole hours: India's, Nepal's)
    /// is read from its rows.
    private func countHours(
        into counts: inout Statistics.Counts, firstHour: Int64, endHour: Int64, clock: LocalClock
    ) throws(SQLiteDatabase.Error) {
        var days = LocalDays(clock: clock, from: firstHour * 3600, to: endHour * 3600)
        var split: [Int64] = []
        try database.query(
            "SELECT hour, outcome, prints, seconds, paused, grams, meters FROM print_hours WHERE hour >= ? AND hour < ? ORDER BY hour",
            [.integer(Int(firstHour)), .integer(Int(endHour))]
        ) { row in
            let hour = Int64(row.integer(0))
            guard let outcome = Self.outcomes.element(at: row.integer(1)) else { return }
            let added = days.add(spanning: hour * 3600, seconds: 3600) {
                $0.add(outcome, count: row.integer(2), seconds: Double(row.integer(3)), paused: Double(row.integer(4)))
                $0.add(grams: row.real(5), meters: row.real(6))
            }
            if !added, split.last != hour { split.append(hour) }
        }
        days.fold(into: &counts)
        for hour in split {
            try countSeries(into: &counts, printer: nil, from: hour * 3600, to: hour * 3600 + 3600, clock: clock)
        }
    }

    /// The series and totals: each print's row, in end order, into its local day.
    private func countSeries(
        into counts: inout Statistics.Counts, printer: Int?, from: Int64, to: Int64, clock: LocalClock
    ) throws(SQLiteDatabase.Error) {
        guard from < to else { return }
        var days = LocalDays(clock: clock, from: from, to: to)
        let filter = printer == nil ? "" : " AND +printer = ?"
        let bindings: [SQLiteDatabase.Value] = [.integer(Int(from)), .integer(Int(to))] + (printer.map { [.integer($0)] } ?? [])
        try database.query("""
            SELECT ended_at, ended_at - started_at, outcome, paused, grams, meters FROM print_stats
            WHERE ended_at >= ? AND ended_at < ?\(filter) ORDER BY ended_at
            """, bindings) { row in
            guard let outcome = Self.outcomes.element(at: row.integer(2)) else { return }
            days.add(spanning: Int64(row.integer(0)), seconds: 1) {
                // A NULL pause reads 0: pauses unknown, the whole time printing.
                $0.add(outcome, count: 1, seconds: Double(row.integer(1)), paused: Double(row.integer(3)))
                $0.add(grams: row.real(4), meters: row.real(5))
            }
        }
        days.fold(into: &counts)
    }

    /// Rolled-up days' series: their prints, seconds and pauses per outcome,
    /// and their material amounts.
    private func countDaySeries(
        into counts: inout Statistics.Counts, printer: Int?, firstDay: Int, endDay: Int
    ) throws(SQLiteDatabase.Error) {
        let range = "day >= ? AND day < ?" + (printer == nil ? "" : " AND printer = ?")
        let bindings: [SQLiteDatabase.Value] = [.integer(firstDay), .integer(endDay)] + (printer.map { [.integer($0)] } ?? [])
        try database.query(
            "SELECT day, outcome, sum(prints), sum(seconds), sum(paused) FROM print_days WHERE \(range) GROUP BY day, outcome",
            bindings
        ) { row in
            guard let outcome = Self.outcomes.element(at: row.integer(1)) else { return }
            counts.days[CivilDay(number: row.integer(0)), default: Statistics.Tally()].add(
                outcome, count: row.integer(2), seconds: Double(row.integer(3)), paused: Double(row.integer(4)))
        }
        try database.query(
            "SELECT day, sum(grams), sum(meters) FROM print_day_material WHERE \(range) GROUP BY day", bindings
        ) { row in
            counts.days[CivilDay(number: row.integer(0)), default: Statistics.Tally()].add(
                grams: row.real(1), meters: row.real(2))
        }
    }

    /// Whole UTC days' material, failures and longest print, from their
    /// roll-ups, read as they lie and summed here (grouping in SQL sorts).
    private func countDayTables(
        into target: inout Statistics.Counts, printer: Int?, firstDay: Int, endDay: Int
    ) throws(SQLiteDatabase.Error) {
        let range = "day >= ? AND day < ?" + (printer == nil ? "" : " AND printer = ?")
        let bindings: [SQLiteDatabase.Value] = [.integer(firstDay), .integer(endDay)] + (printer.map { [.integer($0)] } ?? [])
        var materials: [Int: (grams: Double?, meters: Double?, prints: Int)] = [:]
        try database.query("SELECT material, grams, meters, prints FROM print_day_material WHERE \(range)", bindings) { row in
            var total = materials[row.integer(0)] ?? (nil, nil, 0)
            if !row.isNull(1) { total.grams = (total.grams ?? 0) + row.real(1) }
            if !row.isNull(2) { total.meters = (total.meters ?? 0) + row.real(2) }
            total.prints += row.integer(3)
            materials[row.integer(0)] = total
        }
        var reasons: [Int: Int] = [:]
        try database.query("SELECT reason, prints FROM print_day_reasons WHERE \(range)", bindings) { row in
            reasons[row.integer(0), default: 0] += row.integer(1)
        }
        var longest: (seconds: Int, printer: Int, started: Int, ended: Int, outcome: Int)?
        try database.query(
            "SELECT max(ended_at - started_at), printer, started_at, ended_at, outcome FROM print_day_longest WHERE \(range)",
            bindings
        ) { row in
            if !row.isNull(0) { longest = (row.integer(0), row.integer(1), row.integer(2), row.integer(3), row.integer(4)) }
        }
        let names = try names(of: Set(materials.keys).union(reasons.keys).union(longest.map { [$0.printer] } ?? []))
        target.materials.merge(materials.compactMap { id, total in
            names[id].map { name in
                let named = Self.material(named: name)
                return .init(type: named.type, color: named.color, grams: total.grams, meters: total.meters, prints: total.prints)
            }
        })
        target.failures.merge(Dictionary(reasons.compactMap { id, count in names[id].map { ($0, count) } }, uniquingKeysWith: +))
        if let longest, let prefix = names[longest.printer] {
            target.offerLongest(prefix: prefix, started: longest.started, ended: longest.ended, outcome: longest.outcome)
        }
    }

    /// The names of these `stats_names` ids.
    private func names(of ids: Set<Int>) throws(SQLiteDatabase.Error) -> [Int: String] {
        var names: [Int: String] = [:]
        for id in ids {
            try database.query("SELECT name FROM stats_names WHERE id = ?", [.integer(id)]) { names[id] = $0.text(0) }
        }
        return names
    }

    /// Material, failures and longest print of the prints that ended in
    /// [from, to) (less than a day), from their rows.
    private func countRows(
        into counts: inout Statistics.Counts, printer: Int?, from: Int64, to: Int64
    ) throws(SQLiteDatabase.Error) {
        guard from < to else { return }
        let range = "s.ended_at >= ? AND s.ended_at < ?" + (printer == nil ? "" : " AND +s.printer = ?")
        let bindings: [SQLiteDatabase.Value] = [.integer(Int(from)), .integer(Int(to))] + (printer.map { [.integer($0)] } ?? [])
        var materials: [Statistics.MaterialTotal] = []
        try database.query("""
            SELECT n.name, sum(s.grams), sum(s.meters), count(DISTINCT s.printer * 4294967296 + s.started_at)
            FROM print_material s JOIN stats_names n ON n.id = s.material WHERE \(range) GROUP BY s.material
            """, bindings) { row in
            materials.append(Self.materialTotal(row))
        }
        counts.materials.merge(materials)
        var failures: [String: Int] = [:]
        try database.query("""
            SELECT n.name, count(*) FROM print_stats s JOIN stats_names n ON n.id = s.reason
            WHERE \(range) AND s.outcome = 1 GROUP BY s.reason
            """, bindings) { row in
            if let reason = row.text(0) { failures[reason, default: 0] += row.integer(1) }
        }
        counts.failures.merge(failures)
        // SQLite gives the row of the max() with it.
        try database.query("""
            SELECT max(s.ended_at - s.started_at), n.name, s.started_at, s.ended_at, s.outcome
            FROM print_stats s JOIN stats_names n ON n.id = s.printer WHERE \(range)
            """, bindings) { row in
            guard !row.isNull(0), let prefix = row.text(1) else { return }
            counts.offerLongest(prefix: prefix, started: row.integer(2), ended: row.integer(3), outcome: row.integer(4))
        }
    }

    private static func materialTotal(_ row: SQLiteDatabase.Row) -> Statistics.MaterialTotal {
        let named = material(named: row.text(0) ?? "")
        return Statistics.MaterialTotal(
            type: named.type, color: named.color, grams: row.isNull(1) ? nil : row.real(1),
            meters: row.isNull(2) ? nil : row.real(2), prints: row.integer(3))
    }

    /// Every printer whose prints were ever counted, by prefix.
    public func statisticsPrinters() throws(Error) -> [String] {
        try run { () throws(SQLiteDatabase.Error) in
            var printers: [String] = []
            try database.query("SELECT name FROM stats_names WHERE kind = 0 ORDER BY name") {
                if let name = $0.text(0) { printers.append(name) }
            }
            return printers
        }
    }

    /// Whether any print of this printer was ever counted.
    public func hasStatistics(printer: String) throws(Error) -> Bool {
        try run { () throws(SQLiteDatabase.Error) in
            var found = false
            try database.query("SELECT 1 FROM stats_names WHERE kind = 0 AND name = ?", [.text(printer)]) { _ in found = true }
            return found
        }
    }

    /// Prints that ended before this are rolled up (0: none are).
    func rolledUpBefore() throws(SQLiteDatabase.Error) -> Int64 {
        var before: Int64 = 0
        try database.query("SELECT value FROM store_meta WHERE key = 'stats_rolled_up_before'") {
            before = $0.text(0).flatMap { Int64($0) } ?? 0
        }
        return before
    }

    /// The retention (PRINT_HISTORY_DAYS): the prints that ended more than
    /// `retention` seconds ago, by the store's clock, rolled up.
    @discardableResult
    public func rollUp(keeping retention: Double) throws(Error) -> Int {
        try rollUp(before: EpochTime(seconds: clock.now().seconds - retention))
    }

    /// The retention: prints that ended before `cutoff` leave the history
    /// and the per-print rows; their figures stay in the daily roll-ups
    /// (kept for every day as prints are written), by whole UTC days: the
    /// cutoff is taken back to a UTC midnight. Returns how many prints left.
    @discardableResult
    public func rollUp(before cutoff: EpochTime) throws(Error) -> Int {
        let cutoff = Int(cutoff.seconds.rounded(.down)) / 86_400 * 86_400
        return try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) -> Int in
                guard Int64(cutoff) > (try rolledUpBefore()) else { return 0 }
                var count = 0
                let bound: [SQLiteDatabase.Value] = [.integer(cutoff)]
                try database.query("SELECT count(*) FROM print_stats WHERE ended_at < ?", bound) { count = $0.integer(0) }
                try database.query("DELETE FROM print_stats WHERE ended_at < ?", bound)
                try database.query("DELETE FROM print_material WHERE ended_at < ?", bound)
                try database.query("DELETE FROM print_history WHERE ended_at < ?", [.real(Double(cutoff))])
                try database.query(
                    "INSERT OR REPLACE INTO store_meta (key, value) VALUES ('stats_rolled_up_before', ?)",
                    [.text(String(cutoff))])
                return count
            }
        }
    }
}

extension Statistics.Counts {
    /// A print offered as the longest: kept when longer than the one kept.
    mutating func offerLongest(prefix: String, started: Int, ended: Int, outcome: Int) {
        guard let outcome = DeviceStore.outcomes.element(at: outcome) else { return }
        let candidate = Statistics.LongestPrint(
            printID: "\(prefix)-\(started)", printer: prefix, startedAt: EpochTime(seconds: Double(started)),
            endedAt: EpochTime(seconds: Double(ended)), outcome: outcome)
        if longest.map({ candidate.seconds > $0.seconds }) ?? true { longest = candidate }
    }
}

/// Instants, in increasing order, folded into the local days they fall on:
/// the zone's changes in the range are walked alongside (rows come in time
/// order), and the days are an array from the range's first.
struct LocalDays {
    private let changes: [LocalClock.Period]
    private var offset: Int64
    private var next = 0
    private let firstDay: Int
    private var days: [Statistics.Tally] = []

    init(clock: LocalClock, from: Int64, to: Int64) {
        changes = clock.periods.filter { $0.start > from && $0.start < to }
        offset = Int64(clock.offset(at: from))
        firstDay = Int((from + offset) / 86_400) - 1
    }

    /// Adds to the day holding [start, start + seconds) when one day holds
    /// it all (false: a local midnight splits it). `start` never goes back.
    @discardableResult
    mutating func add(spanning start: Int64, seconds: Int64, _ body: (inout Statistics.Tally) -> Void) -> Bool {
        while next < changes.count, changes[next].start <= start {
            offset = Int64(changes[next].offset)
            next += 1
        }
        let last = start + seconds - 1
        let lastOffset = next < changes.count && changes[next].start <= last ? Int64(changes[next].offset) : offset
        let day = Int((start + offset) / 86_400)
        guard day == Int((last + lastOffset) / 86_400), day > firstDay else { return false }
        let index = day - firstDay
        if index >= days.count { days += Array(repeating: Statistics.Tally(), count: index - days.count + 1) }
        body(&days[index])
        return true
    }

    /// The days with prints into the counts.
    func fold(into counts: inout Statistics.Counts) {
        for (index, tally) in days.enumerated() where tally.prints > 0 {
            counts.days[CivilDay(number: firstDay + index), default: Statistics.Tally()].add(tally)
        }
    }
}

extension Statistics.Tally {
    mutating func add(_ outcome: PrintRecord.Outcome, count: Int, seconds: Double, paused: Double) {
        add(outcome, count: count)
        self.seconds += seconds
        pausedSeconds += paused
    }

    mutating func add(grams: Double, meters: Double) {
        self.grams += grams
        self.meters += meters
    }
}

extension [Statistics.MaterialTotal] {
    /// Adds totals, one entry per material (type and colour).
    mutating func merge(_ others: [Statistics.MaterialTotal]) {
        for other in others {
            if let index = firstIndex(where: { $0.type == other.type && $0.color == other.color }) {
                func sum(_ a: Double?, _ b: Double?) -> Double? { a == nil && b == nil ? nil : (a ?? 0) + (b ?? 0) }
                self[index].grams = sum(self[index].grams, other.grams)
                self[index].meters = sum(self[index].meters, other.meters)
                self[index].prints += other.prints
            } else {
                append(other)
            }
        }
    }
}

extension [(reason: String, count: Int)] {
    mutating func merge(_ others: [String: Int]) {
        for (reason, count) in others {
            if let index = firstIndex(where: { $0.reason == reason }) {
                self[index].count += count
            } else {
                append((reason, count))
            }
        }
    }
}

extension Array {
    fileprivate func element(at index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
