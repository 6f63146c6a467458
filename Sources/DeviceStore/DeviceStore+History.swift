import PrintBridgeCore

/// Print history: each print that ended, written in the same transaction as
/// the printer memory of the change that ended it, the newest
/// `historyLimit` kept per printer.
extension DeviceStore {
    /// How many prints each printer's history keeps.
    public static let historyLimit = 500

    /// Which prints a page of the history holds: a printer's (every
    /// printer's when nil), of these outcomes (any when empty), that ended
    /// in [from, to) (open where nil), older than `before`.
    public struct HistoryQuery: Hashable, Sendable {
        public var printer: String?
        public var outcomes: Set<PrintRecord.Outcome>
        public var from: EpochTime?
        public var to: EpochTime?
        public var before: PageCursor?

        public init(
            printer: String? = nil, outcomes: Set<PrintRecord.Outcome> = [], from: EpochTime? = nil, to: EpochTime? = nil,
            before: PageCursor? = nil
        ) {
            self.printer = printer
            self.outcomes = outcomes
            self.from = from
            self.to = to
            self.before = before
        }
    }

    /// One page of the history, newest end first, and where the next
    /// begins (nil when there is no more).
    public struct HistoryPage: Hashable, Sendable {
        public var prints: [PrintRecord]
        public var next: PageCursor?
    }

    /// A printer's prints (every printer's when nil), newest first.
    public func printHistory(printer: String? = nil, limit: Int = DeviceStore.historyLimit) throws(Error) -> [PrintRecord] {
        try printHistory(HistoryQuery(printer: printer), limit: limit).prints
    }

    /// The prints `query` selects, newest end first (then the newest
    /// written), at most `limit`.
    public func printHistory(_ query: HistoryQuery, limit: Int) throws(Error) -> HistoryPage {
        try run { () throws(SQLiteDatabase.Error) in
            var conditions: [String] = []
            var bindings: [SQLiteDatabase.Value] = []
            if let printer = query.printer {
                conditions.append("printer_prefix = ?")
                bindings.append(.text(printer))
            }
            if !query.outcomes.isEmpty {
                let names = query.outcomes.map(\.rawValue).sorted()
                conditions.append("outcome IN (" + names.map { _ in "?" }.joined(separator: ", ") + ")")
                bindings += names.map { .text($0) }
            }
            if let from = query.from {
                conditions.append("ended_at >= ?")
                bindings.append(.real(from.seconds))
            }
            if let to = query.to {
                conditions.append("ended_at < ?")
                bindings.append(.real(to.seconds))
            }
            if let before = query.before {
                let older = before.olderThan(time: "ended_at", id: "rowid")
                conditions.append(older.sql)
                bindings += older.bindings
            }
            var sql = """
                SELECT print_id, printer_prefix, printer_name, file, started_at, ended_at, outcome, reason, progress,
                       current_layer, total_layers, paused_seconds, materials, rowid FROM print_history
                """
            if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
            // One more than asked: whether there is a next page.
            sql += " ORDER BY ended_at DESC, rowid DESC LIMIT ?"
            bindings.append(.integer(max(0, limit) + 1))
            var found: [(record: PrintRecord, rowid: Int)] = []
            try database.query(sql, bindings) { row in
                guard let printID = row.text(0), let prefix = row.text(1),
                    let outcome = row.text(6).flatMap(PrintRecord.Outcome.init(rawValue:))
                else { return }
                found.append((PrintRecord(
                    printID: printID, printer: prefix, printerName: row.text(2), file: row.text(3),
                    startedAt: EpochTime(seconds: row.real(4)), endedAt: EpochTime(seconds: row.real(5)),
                    outcome: outcome, reason: row.text(7), progress: row.isNull(8) ? nil : row.real(8),
                    currentLayer: row.isNull(9) ? nil : row.integer(9), totalLayers: row.isNull(10) ? nil : row.integer(10),
                    pausedSeconds: row.isNull(11) ? nil : row.real(11),
                    materials: row.text(12).map(MaterialUse.parse) ?? []), row.integer(13)))
            }
            let page = PageCursor.page(found, limit: limit) { PageCursor(time: $0.record.endedAt, id: $0.rowid) }
            return HistoryPage(prints: page.rows.map(\.record), next: page.next)
        }
    }

    /// Writes ended prints (inside the caller's transaction). A print saved
    /// again (the same change seen after a crash) replaces its record.
    func writeHistory(_ prints: [PrintRecord]) throws(SQLiteDatabase.Error) {
        for record in prints {
            try database.query("""
                INSERT OR REPLACE INTO print_history (print_id, printer_prefix, printer_name, file, started_at, ended_at,
                                                      outcome, reason, progress, current_layer, total_layers,
                                                      paused_seconds, materials)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [
                    .text(record.printID), .text(record.printer), .optional(record.printerName), .optional(record.file),
                    .real(record.startedAt.seconds), .real(record.endedAt.seconds), .text(record.outcome.rawValue),
                    .optional(record.reason), record.progress.map(SQLiteDatabase.Value.real) ?? .null,
                    record.currentLayer.map(SQLiteDatabase.Value.integer) ?? .null,
                    record.totalLayers.map(SQLiteDatabase.Value.integer) ?? .null,
                    record.pausedSeconds.map(SQLiteDatabase.Value.real) ?? .null,
                    record.materials.isEmpty ? .null : .text(MaterialUse.json(record.materials)),
                ])
            try writeStatistics(record)
        }
        for printer in Set(prints.map(\.printer)).sorted() {
            try database.query("""
                DELETE FROM print_history WHERE printer_prefix = ?1 AND print_id NOT IN (
                    SELECT print_id FROM print_history WHERE printer_prefix = ?1
                    ORDER BY ended_at DESC, print_id LIMIT ?2)
                """, [.text(printer), .integer(Self.historyLimit)])
        }
    }
}
