import PrintBridgeCore

extension DeviceStore {
    /// Where a page of a list kept newest first begins: just older than a
    /// row already shown (its time, then its id), or than a time. The
    /// phones' alerts (`notifications`) and the print history
    /// (`printHistory`) page with it; the API hands it out as `next`.
    public struct PageCursor: Hashable, Sendable, CustomStringConvertible {
        /// The row's time: when an alert was made, when a print ended.
        public var time: EpochTime
        /// The row the cursor is after; 0 for a time (ids start at 1).
        public var id: Int

        public init(time: EpochTime, id: Int = 0) {
            self.time = time
            self.id = id
        }

        /// `<id>_<the time's bits in hex>`: opaque to the app, exact here (a
        /// time written in decimal could miss its row by a rounding).
        public var description: String { "\(id)_\(String(time.seconds.bitPattern, radix: 16))" }

        /// A cursor as `description` writes it, or nil.
        public init?(_ text: String) {
            let parts = text.split(separator: "_", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].count <= 18, parts[1].count <= 16, let id = Int(parts[0]), id > 0,
                let bits = UInt64(parts[1], radix: 16)
            else { return nil }
            let seconds = Double(bitPattern: bits)
            guard seconds.isFinite else { return nil }
            self.init(time: EpochTime(seconds: seconds), id: id)
        }

        /// The SQL condition "older than the cursor" on a table's time and
        /// id columns, and its bindings: a page never repeats or skips a row
        /// of the same time as the one it ends with.
        func olderThan(time column: String, id idColumn: String) -> (sql: String, bindings: [SQLiteDatabase.Value]) {
            ("(\(column) < ? OR (\(column) = ? AND \(idColumn) < ?))", [.real(time.seconds), .real(time.seconds), .integer(id)])
        }

        /// One page from the rows read for it (one more than `limit`, newest
        /// first), and the cursor after its last row when there are more.
        static func page<Row>(_ rows: [Row], limit: Int, cursor: (Row) -> PageCursor) -> (rows: [Row], next: PageCursor?) {
            guard rows.count > limit else { return (rows, nil) }
            let page = Array(rows.prefix(limit))
            return (page, page.last.map(cursor))
        }
    }
}
