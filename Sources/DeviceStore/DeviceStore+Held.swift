import PrintBridgeCore

/// The alerts held for phones in their quiet hours (issue 53,
/// `PushPlanner.heldAlerts`), so a restart in the night still tells them in
/// the morning: the table of migration 16, rewritten whole with the change
/// that altered them (a household's night holds a few rows). No reference to
/// `devices`: a phone removed meanwhile is dropped by the planner at the end
/// of its quiet hours, and a held alert never fails the commit it rides in.
extension DeviceStore {
    /// Every held alert, oldest first.
    public func heldAlerts() throws(Error) -> [HeldAlert] {
        try run { () throws(SQLiteDatabase.Error) in
            var held: [HeldAlert] = []
            try database.query("""
                SELECT device_id, printer_prefix, printer_name, event, file, print_id, milestone, reason, time_zone,
                       held_at, release_at
                FROM held_alerts ORDER BY held_at, id
                """) { row in
                guard let event = row.text(3).flatMap(Push.Event.init(rawValue:)) else { return }
                held.append(HeldAlert(
                    deviceID: row.text(0) ?? "", printer: row.text(1) ?? "", printerName: row.text(2) ?? "", event: event,
                    fileName: row.text(4), printID: row.text(5), milestone: row.isNull(6) ? nil : row.integer(6),
                    reason: row.text(7), timeZone: row.text(8) ?? "UTC", at: EpochTime(seconds: row.real(9)),
                    releaseAt: EpochTime(seconds: row.real(10))))
            }
            return held
        }
    }

    /// Replaces the held alerts with `held` (inside the caller's transaction).
    func writeHeld(_ held: [HeldAlert]) throws(SQLiteDatabase.Error) {
        try database.query("DELETE FROM held_alerts")
        for alert in held {
            try database.query("""
                INSERT INTO held_alerts (device_id, printer_prefix, printer_name, event, file, print_id, milestone, reason,
                                         time_zone, held_at, release_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [
                    .text(alert.deviceID), .text(alert.printer), .text(alert.printerName), .text(alert.event.rawValue),
                    .optional(alert.fileName), .optional(alert.printID), alert.milestone.map { .integer($0) } ?? .null,
                    .optional(alert.reason), .text(alert.timeZone), .real(alert.at.seconds), .real(alert.releaseAt.seconds),
                ])
        }
    }
}
