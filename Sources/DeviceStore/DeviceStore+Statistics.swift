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
    /// transaction). Saved again (the same change after a crash), it
    /// replaces the first.
    func writeStatistics(_ record: PrintRecord) throws(SQLiteDatabase.Error) {
        let printer = try nameID(.printer, record.printer)
        let started = Int(record.startedAt.seconds.rounded(.down))
        let ended = max(started, Int(record.endedAt.seconds.rounded(.down)))
        var previousEnd: Int?
        try database.query(
            "SELECT ended_at FROM print_stats WHERE printer = ? AND started_at = ?", [.integer(printer), .integer(started)]
        ) { previousEnd = $0.integer(0) }
        if let previousEnd {
            try database.query(
                "DELETE FROM print_stats WHERE ended_at = ? AND printer = ? AND started_at = ?",
                [.integer(previousEnd), .integer(printer), .integer(started)])
            try database.query(
                "DELETE FROM print_material WHERE ended_at = ? AND printer = ? AND started_at = ?",
                [.integer(previousEnd), .integer(printer), .integer(started)])
        }
        let reason = try record.reason.map { reason throws(SQLiteDatabase.Error) in try nameID(.reason, reason) }
        try database.query("""
            INSERT INTO print_stats (ended_at, printer, started_at, outcome, paused, layers, reason)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [
                .integer(ended), .integer(printer), .integer(started), .integer(Self.outcomeNumbers[record.outcome]!),
                record.pausedSeconds.map { .integer(Int($0.rounded())) } ?? .null,
                record.totalLayers.map(SQLiteDatabase.Value.integer) ?? .null,
                reason.map(SQLiteDatabase.Value.integer) ?? .null,
            ])
        for (slot, use) in record.materials.enumerated() {
            let material = try nameID(.material, Self.materialName(use))
            try database.query("""
                INSERT INTO print_material (ended_at, printer, started_at, slot, material, grams, meters)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [
                    .integer(ended), .integer(printer), .integer(started), .integer(slot), .integer(material),
                    use.grams.map(SQLiteDatabase.Value.real) ?? .null, use.meters.map(SQLiteDatabase.Value.real) ?? .null,
                ])
        }
    }

    /// What the prints that ended in [from, to) add up to, by the local day
    /// they ended on (`clock`); one printer's, or every printer's when nil.
    /// Days whose prints were rolled up (the retention) count by their UTC day.
    public func statisticsCounts(printer: String?, from: Int64, to: Int64, clock: LocalClock) throws(Error)
        -> Statistics.Counts
    {
        try run { () throws(SQLiteDatabase.Error) in
            var counts = Statistics.Counts()
            guard to > from else { return counts }
            var printerID: Int?
            if let printer {
                try database.query("SELECT id FROM stats_names WHERE kind = 0 AND name = ?", [.text(printer)]) {
                    printerID = $0.integer(0)
                }
                guard printerID != nil else { return counts }
            }
            let rolledUpBefore = try rolledUpBefore()
            if from < rolledUpBefore {
                try countRolledUp(
                    into: &counts, printer: printerID, from: from, to: min(to, rolledUpBefore))
            }
            let start = max(from, rolledUpBefore)
            if start < to {
                try countPrints(into: &counts, printer: printerID, from: start, to: to, clock: clock)
            }
            return counts
        }
    }

    /// The local day of `ended_at` in SQL: the zone's offsets over the range
    /// as a CASE (a year holds two or three), bound as parameters.
    private static func localDay(_ clock: LocalClock, from: Int64, to: Int64) -> (sql: String, bindings: [SQLiteDatabase.Value]) {
        let periods = clock.periods.filter { $0.start > from && $0.start < to }
        var bindings: [SQLiteDatabase.Value] = []
        var sql = "((ended_at + CASE"
        var offset = clock.offset(at: from)
        for period in periods {
            sql += " WHEN ended_at < ? THEN ?"
            bindings += [.integer(Int(period.start)), .integer(offset)]
            offset = period.offset
        }
        sql += " ELSE ? END) / 86400)"
        bindings.append(.integer(offset))
        if periods.isEmpty { sql = "((ended_at + ?) / 86400)" }
        return (sql, bindings)
    }

    private func countPrints(
        into target: inout Statistics.Counts, printer: Int?, from: Int64, to: Int64, clock: LocalClock
    ) throws(SQLiteDatabase.Error) {
        var counts = target  // the row callbacks may not capture an inout
        defer { target = counts }
        let day = Self.localDay(clock, from: from, to: to)
        let range = "ended_at >= ? AND ended_at < ?" + (printer == nil ? "" : " AND printer = ?")
        let rangeBindings: [SQLiteDatabase.Value] =
            [.integer(Int(from)), .integer(Int(to))] + (printer.map { [.integer($0)] } ?? [])
        // One pass over the range's rows (the table is ordered by ended_at):
        // per local day and outcome, the prints, their seconds and pauses.
        try database.query("""
            SELECT \(day.sql) AS day, outcome, count(*), sum(ended_at - started_at), sum(coalesce(paused, 0))
            FROM print_stats WHERE \(range) GROUP BY day, outcome
            """, day.bindings + rangeBindings) { row in
            let civil = CivilDay(number: row.integer(0))
            guard let outcome = Self.outcomes.element(at: row.integer(1)) else { return }
            var tally = counts.days[civil] ?? Statistics.Tally()
            tally.add(outcome, count: row.integer(2))
            tally.seconds += Double(row.integer(3))
            tally.pausedSeconds += Double(row.integer(4))
            counts.days[civil] = tally
        }
        try database.query("""
            SELECT \(day.sql) AS day, sum(grams), sum(meters) FROM print_material WHERE \(range) GROUP BY day
            """, day.bindings + rangeBindings) { row in
            let civil = CivilDay(number: row.integer(0))
            var tally = counts.days[civil] ?? Statistics.Tally()
            tally.grams += row.isNull(1) ? 0 : row.real(1)
            tally.meters += row.isNull(2) ? 0 : row.real(2)
            counts.days[civil] = tally
        }
        var materials: [Int: Statistics.MaterialTotal] = [:]
        try database.query("""
            SELECT m.material, n.name, sum(m.grams), sum(m.meters), count(DISTINCT m.printer || '-' || m.started_at)
            FROM print_material m JOIN stats_names n ON n.id = m.material WHERE \(range.replacingPrefix("m."))
            GROUP BY m.material
            """, rangeBindings) { row in
            let named = Self.material(named: row.text(1) ?? "")
            materials[row.integer(0)] = Statistics.MaterialTotal(
                type: named.type, color: named.color, grams: row.isNull(2) ? nil : row.real(2),
                meters: row.isNull(3) ? nil : row.real(3), prints: row.integer(4))
        }
        counts.materials.merge(Array(materials.values))
        var failures: [String: Int] = [:]
        try database.query("""
            SELECT n.name, count(*) FROM print_stats s JOIN stats_names n ON n.id = s.reason
            WHERE \(range.replacingPrefix("s.")) AND s.outcome = 1 GROUP BY s.reason
            """, rangeBindings) { row in
            if let reason = row.text(0) { failures[reason, default: 0] += row.integer(1) }
        }
        counts.failures.merge(failures)
        // SQLite gives the row of the max() with it.
        try database.query("""
            SELECT max(ended_at - started_at), n.name, started_at, ended_at, outcome
            FROM print_stats s JOIN stats_names n ON n.id = s.printer WHERE \(range.replacingPrefix("s."))
            """, rangeBindings) { row in
            guard !row.isNull(0), let prefix = row.text(1) else { return }
            counts.offerLongest(prefix: prefix, started: row.integer(2), ended: row.integer(3), outcome: row.integer(4))
        }
        if let longest = counts.longest, longest.file == nil {
            try database.query("SELECT file FROM print_history WHERE print_id = ?", [.text(longest.printID)]) {
                counts.longest?.file = $0.text(0)
            }
        }
    }

    /// Days rolled up: counted by their UTC day.
    private func countRolledUp(
        into target: inout Statistics.Counts, printer: Int?, from: Int64, to: Int64
    ) throws(SQLiteDatabase.Error) {
        var counts = target
        defer { target = counts }
        let firstDay = Int((from + 86_399) / 86_400)  // whole days only: a day counts once its start is in range
        let endDay = Int((to + 86_399) / 86_400)
        let range = "day >= ? AND day < ?" + (printer == nil ? "" : " AND printer = ?")
        let bindings: [SQLiteDatabase.Value] = [.integer(firstDay), .integer(endDay)] + (printer.map { [.integer($0)] } ?? [])
        try database.query(
            "SELECT day, outcome, sum(prints), sum(seconds), sum(paused) FROM print_days WHERE \(range) GROUP BY day, outcome",
            bindings
        ) { row in
            let civil = CivilDay(number: row.integer(0))
            guard let outcome = Self.outcomes.element(at: row.integer(1)) else { return }
            var tally = counts.days[civil] ?? Statistics.Tally()
            tally.add(outcome, count: row.integer(2))
            tally.seconds += Double(row.integer(3))
            tally.pausedSeconds += Double(row.integer(4))
            counts.days[civil] = tally
        }
        var materials: [Statistics.MaterialTotal] = []
        try database.query("""
            SELECT d.day, n.name, d.grams, d.meters, d.prints FROM print_day_material d
            JOIN stats_names n ON n.id = d.material WHERE \(range.replacingPrefix("d."))
            """, bindings) { row in
            let civil = CivilDay(number: row.integer(0))
            var tally = counts.days[civil] ?? Statistics.Tally()
            tally.grams += row.isNull(2) ? 0 : row.real(2)
            tally.meters += row.isNull(3) ? 0 : row.real(3)
            counts.days[civil] = tally
            let named = Self.material(named: row.text(1) ?? "")
            materials.append(.init(
                type: named.type, color: named.color, grams: row.isNull(2) ? nil : row.real(2),
                meters: row.isNull(3) ? nil : row.real(3), prints: row.integer(4)))
        }
        counts.materials.merge(materials)
        var failures: [String: Int] = [:]
        try database.query("""
            SELECT n.name, sum(d.prints) FROM print_day_reasons d JOIN stats_names n ON n.id = d.reason
            WHERE \(range.replacingPrefix("d.")) GROUP BY d.reason
            """, bindings) { row in
            if let reason = row.text(0) { failures[reason, default: 0] += row.integer(1) }
        }
        counts.failures.merge(failures)
        try database.query("""
            SELECT max(d.ended_at - d.started_at), n.name, d.started_at, d.ended_at, d.outcome FROM print_day_longest d
            JOIN stats_names n ON n.id = d.printer WHERE \(range.replacingPrefix("d."))
            """, bindings) { row in
            guard !row.isNull(0), let prefix = row.text(1) else { return }
            counts.offerLongest(prefix: prefix, started: row.integer(2), ended: row.integer(3), outcome: row.integer(4))
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

    /// The retention: prints that ended before `cutoff` leave the history
    /// and the per-print statistics, their figures kept in the daily
    /// roll-ups (whole UTC days: the cutoff is taken back to a UTC
    /// midnight). Returns how many prints were rolled up.
    @discardableResult
    public func rollUp(before cutoff: EpochTime) throws(Error) -> Int {
        let cutoff = Int(cutoff.seconds.rounded(.down)) / 86_400 * 86_400
        return try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) -> Int in
                guard Int64(cutoff) > (try rolledUpBefore()) else { return 0 }
                var count = 0
                try database.query("SELECT count(*) FROM print_stats WHERE ended_at < ?", [.integer(cutoff)]) {
                    count = $0.integer(0)
                }
                let bound: [SQLiteDatabase.Value] = [.integer(cutoff)]
                try database.query("""
                    INSERT INTO print_days (day, printer, outcome, prints, seconds, paused)
                    SELECT ended_at / 86400, printer, outcome, count(*), sum(ended_at - started_at), sum(coalesce(paused, 0))
                    FROM print_stats WHERE ended_at < ? GROUP BY 1, 2, 3
                    ON CONFLICT (day, printer, outcome) DO UPDATE SET prints = prints + excluded.prints,
                        seconds = seconds + excluded.seconds, paused = paused + excluded.paused
                    """, bound)
                try database.query("""
                    INSERT INTO print_day_reasons (day, printer, reason, prints)
                    SELECT ended_at / 86400, printer, reason, count(*) FROM print_stats
                    WHERE ended_at < ? AND outcome = 1 AND reason IS NOT NULL GROUP BY 1, 2, 3
                    ON CONFLICT (day, printer, reason) DO UPDATE SET prints = prints + excluded.prints
                    """, bound)
                try database.query("""
                    INSERT INTO print_day_material (day, printer, material, grams, meters, prints)
                    SELECT ended_at / 86400, printer, material, sum(grams), sum(meters), count(DISTINCT started_at)
                    FROM print_material WHERE ended_at < ? GROUP BY 1, 2, 3
                    ON CONFLICT (day, printer, material) DO UPDATE SET grams = coalesce(grams + excluded.grams,
                        grams, excluded.grams), meters = coalesce(meters + excluded.meters, meters, excluded.meters),
                        prints = prints + excluded.prints
                    """, bound)
                try database.query("""
                    INSERT INTO print_day_longest (day, printer, started_at, ended_at, outcome)
                    SELECT day, printer, started_at, ended_at, outcome FROM (
                        SELECT ended_at / 86400 AS day, printer, started_at, ended_at, outcome,
                               row_number() OVER (PARTITION BY ended_at / 86400, printer
                                                  ORDER BY ended_at - started_at DESC) AS rank
                        FROM print_stats WHERE ended_at < ?) WHERE rank = 1
                    ON CONFLICT (day, printer) DO UPDATE SET started_at = excluded.started_at,
                        ended_at = excluded.ended_at, outcome = excluded.outcome
                        WHERE excluded.ended_at - excluded.started_at > ended_at - started_at
                    """, bound)
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

extension String {
    /// "ended_at >= ? AND …" with each column named through a table alias.
    fileprivate func replacingPrefix(_ alias: String) -> String {
        var text = self
        for column in ["ended_at", "printer", "day"] {
            text = text.split(separator: " ", omittingEmptySubsequences: false)
                .map { $0 == Substring(column) ? alias + column : String($0) }.joined(separator: " ")
        }
        return text
    }
}
