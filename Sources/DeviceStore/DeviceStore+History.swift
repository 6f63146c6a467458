import PrintBridgeCore

/// Print history: each print that ended, written in the same transaction as
/// the printer memory of the change that ended it, the newest
/// `historyLimit` kept per printer.
extension DeviceStore {
    /// How many prints each printer's history keeps.
    public static let historyLimit = 500

    /// A printer's prints (every printer's when nil), newest first.
    public func printHistory(printer: String? = nil, limit: Int = DeviceStore.historyLimit) throws(Error) -> [PrintRecord] {
        try run { () throws(SQLiteDatabase.Error) in
            var records: [PrintRecord] = []
            let columns = """
                SELECT print_id, printer_prefix, printer_name, file, started_at, ended_at, outcome, reason, progress,
                       current_layer, total_layers, paused_seconds, materials FROM print_history
                """
            let sql = printer == nil
                ? columns + " ORDER BY ended_at DESC, print_id LIMIT ?"
                : columns + " WHERE printer_prefix = ? ORDER BY ended_at DESC, print_id LIMIT ?"
            let bindings: [SQLiteDatabase.Value] = (printer.map { [.text($0)] } ?? []) + [.integer(max(0, limit))]
            try database.query(sql, bindings) { row in
                guard let printID = row.text(0), let prefix = row.text(1),
                    let outcome = row.text(6).flatMap(PrintRecord.Outcome.init(rawValue:))
                else { return }
                records.append(PrintRecord(
                    printID: printID, printer: prefix, printerName: row.text(2), file: row.text(3),
                    startedAt: EpochTime(seconds: row.real(4)), endedAt: EpochTime(seconds: row.real(5)),
                    outcome: outcome, reason: row.text(7), progress: row.isNull(8) ? nil : row.real(8),
                    currentLayer: row.isNull(9) ? nil : row.integer(9), totalLayers: row.isNull(10) ? nil : row.integer(10),
                    pausedSeconds: row.isNull(11) ? nil : row.real(11),
                    materials: row.text(12).map(MaterialUse.parse) ?? []))
            }
            return records
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
