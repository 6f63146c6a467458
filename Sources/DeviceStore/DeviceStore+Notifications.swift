import PrintBridgeCore

/// The alerts sent to each phone, for the app's history: recorded in the
/// same transaction as the outbox entry of their push, their outcome written
/// in the one that takes the push out of the outbox, kept for a set time.
extension DeviceStore {
    /// One page of a phone's notifications, newest first, and where the next
    /// begins (nil when there is no more).
    public struct NotificationPage: Hashable, Sendable {
        public var notifications: [SentNotification]
        public var next: PageCursor?
    }

    /// A phone's notifications (only those about `printer` when given),
    /// newest first, at most `limit`, older than `before` when given.
    public func notifications(
        device: String, printer: String? = nil, before: PageCursor? = nil, limit: Int
    ) throws(Error) -> NotificationPage {
        try run { () throws(SQLiteDatabase.Error) in
            var sql = """
                SELECT id, device_id, printer_prefix, event, title, body, reason, created_at, outcome, apns_id, snapshot
                FROM notifications WHERE device_id = ?
                """
            var bindings: [SQLiteDatabase.Value] = [.text(device)]
            if let printer {
                sql += " AND printer_prefix = ?"
                bindings.append(.text(printer))
            }
            if let before {
                let older = before.olderThan(time: "created_at", id: "id")
                sql += " AND " + older.sql
                bindings += older.bindings
            }
            sql += " ORDER BY created_at DESC, id DESC LIMIT ?"
            // One more than asked: whether there is a next page.
            bindings.append(.integer(max(0, limit) + 1))
            var found: [SentNotification] = []
            try database.query(sql, bindings) { row in
                guard let deviceID = row.text(1), let prefix = row.text(2),
                    let event = row.text(3).flatMap(Push.Event.init(rawValue:)), let title = row.text(4),
                    let body = row.text(5), let outcome = row.text(8).flatMap(SentNotification.Outcome.init(rawValue:)),
                    let apnsID = row.text(9)
                else { return }
                found.append(SentNotification(
                    id: row.integer(0), deviceID: deviceID, printer: prefix, event: event, title: title, body: body,
                    reason: row.text(6), createdAt: EpochTime(seconds: row.real(7)), outcome: outcome, apnsID: apnsID,
                    snapshot: row.text(10)))
            }
            let page = PageCursor.page(found, limit: limit) { PageCursor(time: $0.createdAt, id: $0.id) }
            return NotificationPage(notifications: page.rows, next: page.next)
        }
    }

    /// Whether a phone with this id is registered.
    public func hasDevice(id: String) throws(Error) -> Bool {
        try run { () throws(SQLiteDatabase.Error) in
            var found = false
            try database.query("SELECT 1 FROM devices WHERE id = ?", [.text(id)]) { _ in found = true }
            return found
        }
    }

    /// Forgets the notifications made more than `seconds` ago (all of them
    /// for 0); returns how many.
    @discardableResult
    public func pruneNotifications(keeping seconds: Double) throws(Error) -> Int {
        // With nothing kept, one made this very moment goes too.
        let cutoff = seconds > 0 ? clock.now().seconds - seconds : .greatestFiniteMagnitude
        return try run { () throws(SQLiteDatabase.Error) in
            try database.query("DELETE FROM notifications WHERE created_at < ?", [.real(cutoff)])
            return database.changes
        }
    }

    /// Records sent alerts and writes settled ones' outcomes (inside the
    /// caller's transaction), then forgets what was made more than `keep`
    /// seconds ago.
    /// An alert to a phone no longer registered, or recorded already (the
    /// same push made again after a crash: its apns-id), is left out rather
    /// than failing the change it belongs to.
    func writeNotifications(
        _ sent: [SentNotification], settled: [SentNotification.Settled], keep: Double?
    ) throws(SQLiteDatabase.Error) {
        for notification in sent {
            try database.query("""
                INSERT INTO notifications (device_id, printer_prefix, event, title, body, reason, created_at, outcome,
                                           apns_id, snapshot)
                SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10 WHERE EXISTS (SELECT 1 FROM devices WHERE id = ?1)
                ON CONFLICT (apns_id) DO NOTHING
                """, [
                    .text(notification.deviceID), .text(notification.printer), .text(notification.event.rawValue),
                    .text(notification.title), .text(notification.body), .optional(notification.reason),
                    .real(notification.createdAt.seconds), .text(notification.outcome.rawValue),
                    .text(notification.apnsID), .optional(notification.snapshot),
                ])
        }
        for update in settled {
            try database.query(
                "UPDATE notifications SET outcome = ? WHERE apns_id = ?", [.text(update.outcome.rawValue), .text(update.apnsID)])
        }
        if let keep, !sent.isEmpty {
            try database.query("DELETE FROM notifications WHERE created_at < ?", [.real(clock.now().seconds - keep)])
        }
    }
}
