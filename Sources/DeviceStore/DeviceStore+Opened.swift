import PrintBridgeCore

/// When a phone's user opened an alert (issue 53, migration 17).
extension DeviceStore {
    public struct Opened: Hashable, Sendable {
        public var apnsID: String
        /// The first time the app said so (a second call keeps it).
        public var openedAt: EpochTime
    }

    /// Marks the phone's alert `notificationID` opened at `time` (once: the
    /// first time stays); nil when the phone has no such alert.
    public func markOpened(deviceID: String, notificationID: Int, at time: EpochTime) throws(Error) -> Opened? {
        try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) in
                try database.query(
                    "UPDATE notifications SET opened_at = ? WHERE id = ? AND device_id = ? AND opened_at IS NULL",
                    [.real(time.seconds), .integer(notificationID), .text(deviceID)])
                var opened: Opened?
                try database.query(
                    "SELECT apns_id, opened_at FROM notifications WHERE id = ? AND device_id = ?",
                    [.integer(notificationID), .text(deviceID)]
                ) { row in
                    opened = Opened(apnsID: row.text(0) ?? "", openedAt: EpochTime(seconds: row.real(1)))
                }
                return opened
            }
        }
    }
}
