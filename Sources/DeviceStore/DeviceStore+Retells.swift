import PrintBridgeCore

/// The failures and printer errors waiting to be told again if nobody opens
/// them (issue 53, `PushPlanner.retells`), so a restart within the delay
/// still tells them: the table of migration 19, rewritten whole with the
/// change that altered them (a few rows at most). The push is kept as the
/// outbox keeps one (`pushColumns`).
extension DeviceStore {
    /// Every re-tell waiting, the soonest first; not one whose alert the
    /// app said was opened (the API writes that at once, the agent's copy of
    /// the table follows when it has heard: a stop in between loses nothing).
    public func retells() throws(Error) -> [PushPlanner.Retell] {
        try run { () throws(SQLiteDatabase.Error) in
            var retells: [PushPlanner.Retell] = []
            try database.query("""
                SELECT print_id, error_text, due, \(Self.pushColumns) FROM retells
                WHERE apns_id IS NULL OR apns_id NOT IN (SELECT apns_id FROM notifications WHERE opened_at IS NOT NULL)
                ORDER BY due, rowid
                """) { row in
                guard let push = Self.push(row, from: 3) else { return }
                retells.append(PushPlanner.Retell(
                    push: push, printID: row.text(0), errorText: row.text(1), due: EpochTime(seconds: row.real(2))))
            }
            return retells
        }
    }

    /// Replaces the re-tells with `retells` (inside the caller's transaction).
    func writeRetells(_ retells: [PushPlanner.Retell]) throws(SQLiteDatabase.Error) {
        try database.query("DELETE FROM retells")
        for retell in retells {
            try database.query(
                "INSERT INTO retells (print_id, error_text, due, \(Self.pushColumns)) VALUES (?, ?, ?, \(Self.pushPlaces))",
                [.optional(retell.printID), .optional(retell.errorText), .real(retell.due.seconds)]
                    + Self.pushValues(retell.push))
        }
    }
}
