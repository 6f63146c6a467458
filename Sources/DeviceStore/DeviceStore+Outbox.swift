import PrintBridgeCore

/// The outbox on disk: pushes made and not yet answered by APNs, saved in
/// the same transaction as the printer memory that made them, so after a
/// crash or an outage either both are there (and the pushes go out from
/// here) or neither is (and the change is seen again from Home Assistant).
extension DeviceStore {
    /// Every unsettled push, oldest first.
    public func outbox() throws(Error) -> [Outbox.Entry] {
        try run { () throws(SQLiteDatabase.Error) in
            var entries: [Outbox.Entry] = []
            try database.query("SELECT sequence, \(Self.pushColumns) FROM outbox ORDER BY sequence") { row in
                guard let push = Self.push(row, from: 1) else { return }
                entries.append(Outbox.Entry(sequence: row.integer(0), push: push))
            }
            return entries
        }
    }

    /// One change, in one transaction: the printers' new memory, the prints
    /// that ended, the ended activities' tokens removed, the pushes it made
    /// queued, and the pushes APNs has settled since taken out; with them
    /// the alerts sent recorded for the phones' history (and what was made
    /// more than `keepNotifications` seconds ago forgotten), and settled
    /// alerts' outcomes written; `held` (when given) the alerts now held
    /// for quiet hours, and `retells` those waiting to be told again,
    /// each replacing those before.
    public func commit(
        states: [String: PrinterNotificationState] = [:], prints: [PrintRecord] = [],
        endedActivities: [PushPlanner.ActivityEnd] = [], enqueue: [Outbox.Entry] = [], settled: [Int] = [],
        notifications: [SentNotification] = [], outcomes: [SentNotification.Settled] = [],
        keepNotifications: Double? = nil, held: [HeldAlert]? = nil,
        retells: [PushPlanner.Retell]? = nil
    ) throws(Error) {
        guard !states.isEmpty || !prints.isEmpty || !endedActivities.isEmpty || !enqueue.isEmpty || !settled.isEmpty
            || !notifications.isEmpty || !outcomes.isEmpty || held != nil || retells != nil
        else { return }
        try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) in
                try writeStates(states)
                if let held { try writeHeld(held) }
                if let retells { try writeRetells(retells) }
                try writeHistory(prints)
                for end in endedActivities {
                    try database.query("DELETE FROM activities WHERE token = ?", [.text(end.token)])
                    // An activity followed by channel ended: the phone follows it no more.
                    try database.query("DELETE FROM channel_followers WHERE device_id = ? AND printer_prefix = ?",
                                       [.text(end.deviceID), .text(end.prefix)])
                }
                for entry in enqueue {
                    try database.query(
                        "INSERT OR REPLACE INTO outbox (sequence, \(Self.pushColumns)) VALUES (?, \(Self.pushPlaces))",
                        [.integer(entry.sequence)] + Self.pushValues(entry.push))
                }
                for sequence in settled {
                    try database.query("DELETE FROM outbox WHERE sequence = ?", [.integer(sequence)])
                }
                try writeNotifications(notifications, settled: outcomes, keep: keepNotifications)
            }
        }
    }
}

extension DeviceStore {
    /// An alert got its picture before it was sent: its queued payload
    /// becomes `payload`, and the phone's history keeps the picture's link.
    public func attachSnapshot(sequence: Int, apnsID: String?, payload: [UInt8], link: String) throws(Error) {
        try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) in
                try database.query(
                    "UPDATE outbox SET payload = ? WHERE sequence = ?",
                    [.text(String(decoding: payload, as: UTF8.self)), .integer(sequence)])
                if let apnsID {
                    try database.query("UPDATE notifications SET snapshot = ? WHERE apns_id = ?", [.text(link), .text(apnsID)])
                }
            }
        }
    }
}

/// A push as the store keeps it, in the outbox and among the re-tells.
extension DeviceStore {
    /// The columns a push is kept in, in the outbox and among the re-tells.
    static let pushColumns = """
        token, kind, event, printer_prefix, device_id, token_kind, topic, priority, collapse_id, apns_id, expiration,
        created_at, payload
        """
    /// A placeholder for each of `pushColumns`.
    static let pushPlaces = Array(repeating: "?", count: 13).joined(separator: ", ")

    /// `push` as `pushColumns`' values.
    static func pushValues(_ push: Push) -> [SQLiteDatabase.Value] {
        [
            .text(push.token), .text(push.kind.rawValue), .text(push.event.rawValue), .text(push.printerPrefix),
            .text(push.deviceID), .text(push.tokenKind.rawValue), .text(push.topic), .integer(push.priority),
            .optional(push.collapseID), .optional(push.apnsID), .real(push.expiration.seconds),
            .real(push.createdAt.seconds), .text(push.payloadText),
        ]
    }

    /// The push in `pushColumns` from column `first` of `row` on; nil for a
    /// row this build cannot read (a kind or event it does not know).
    static func push(_ row: SQLiteDatabase.Row, from first: Int32) -> Push? {
        guard let token = row.text(first), let kind = row.text(first + 1).flatMap(Push.Kind.init(rawValue:)),
            let event = row.text(first + 2).flatMap(Push.Event.init(rawValue:)), let prefix = row.text(first + 3),
            let deviceID = row.text(first + 4), let tokenKind = row.text(first + 5).flatMap(Push.TokenKind.init(rawValue:)),
            let topic = row.text(first + 6), let payload = row.text(first + 12)
        else { return nil }
        var push = Push(
            kind: kind, event: event, printerPrefix: prefix, deviceID: deviceID, token: token,
            tokenKind: tokenKind, topic: topic, priority: row.integer(first + 7), collapseID: row.text(first + 8),
            expiration: EpochTime(seconds: row.real(first + 10)), payload: Array(payload.utf8),
            createdAt: EpochTime(seconds: row.real(first + 11)))
        push.apnsID = row.text(first + 9)
        return push
    }
}
