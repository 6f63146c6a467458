import PrintBridgeCore

/// Live Activity broadcast channels (iOS 18): each printer's channel, the
/// channels still to delete at APNs, and the phones that follow a
/// printer's activity by its channel (the agent's `ChannelKeeper` keeps
/// them; docs/BEHAVIOUR.md, "Broadcast channels").
extension DeviceStore {
    /// The channels of one APNs environment.
    public struct Channels: Hashable, Sendable {
        /// Each printer's channel id.
        public var byPrinter: [String: String] = [:]
        /// When each printer with a channel was last in Home Assistant's
        /// list of printers.
        public var lastSeen: [String: EpochTime] = [:]
        /// Channels to delete at APNs (their printer is gone), oldest first.
        public var deletions: [String] = []

        public init() {}
    }

    public func channels(environment: String) throws(Error) -> Channels {
        try run { () throws(SQLiteDatabase.Error) in
            var channels = Channels()
            try database.query(
                "SELECT printer_prefix, channel_id, last_seen FROM printer_channels WHERE environment = ?",
                [.text(environment)]
            ) { row in
                guard let prefix = row.text(0), let id = row.text(1) else { return }
                channels.byPrinter[prefix] = id
                channels.lastSeen[prefix] = EpochTime(seconds: row.real(2))
            }
            try database.query(
                "SELECT channel_id FROM channel_deletions WHERE environment = ? ORDER BY since, channel_id",
                [.text(environment)]
            ) { row in
                if let id = row.text(0) { channels.deletions.append(id) }
            }
            return channels
        }
    }

    /// Keeps the channel APNs made for a printer.
    public func saveChannel(_ id: String, printerPrefix: String, environment: String) throws(Error) {
        let now = clock.now().seconds
        try run { () throws(SQLiteDatabase.Error) in
            try database.query("""
                INSERT INTO printer_channels (printer_prefix, environment, channel_id, created_at, last_seen)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (printer_prefix, environment) DO UPDATE SET channel_id = excluded.channel_id,
                    created_at = excluded.created_at, last_seen = excluded.last_seen
                """, [.text(printerPrefix), .text(environment), .text(id), .real(now), .real(now)])
        }
    }

    /// These printers were in Home Assistant's list just now.
    public func sawPrinters(_ prefixes: [String], environment: String) throws(Error) {
        let now = clock.now().seconds
        try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) in
                for prefix in prefixes {
                    try database.query(
                        "UPDATE printer_channels SET last_seen = ? WHERE printer_prefix = ? AND environment = ?",
                        [.real(now), .text(prefix), .text(environment)])
                }
            }
        }
    }

    /// A removed printer's channel: no longer the printer's, and queued for
    /// deletion at APNs (kept until it is deleted, across restarts). Its
    /// followers follow nothing.
    public func retireChannel(printerPrefix: String, environment: String) throws(Error) {
        let now = clock.now().seconds
        try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) in
                try database.query("""
                    INSERT OR IGNORE INTO channel_deletions (channel_id, environment, since)
                    SELECT channel_id, environment, ? FROM printer_channels WHERE printer_prefix = ? AND environment = ?
                    """, [.real(now), .text(printerPrefix), .text(environment)])
                try database.query("DELETE FROM printer_channels WHERE printer_prefix = ? AND environment = ?",
                                   [.text(printerPrefix), .text(environment)])
                try database.query("DELETE FROM channel_followers WHERE printer_prefix = ?", [.text(printerPrefix)])
            }
        }
    }

    /// A channel to delete at APNs that no printer has (made for a printer
    /// gone meanwhile), kept until it is deleted.
    public func queueChannelDeletion(_ id: String, environment: String) throws(Error) {
        let now = clock.now().seconds
        try run { () throws(SQLiteDatabase.Error) in
            try database.query("INSERT OR IGNORE INTO channel_deletions (channel_id, environment, since) VALUES (?, ?, ?)",
                               [.text(id), .text(environment), .real(now)])
        }
    }

    /// APNs deleted the channel, or no longer knows it: it is forgotten
    /// (a printer whose channel it was gets a new one).
    public func forgetChannel(_ id: String) throws(Error) {
        try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) in
                try database.query("DELETE FROM channel_deletions WHERE channel_id = ?", [.text(id)])
                try database.query("DELETE FROM printer_channels WHERE channel_id = ?", [.text(id)])
            }
        }
    }

    /// A phone follows a printer's Live Activity by the printer's channel
    /// (iOS 18: the app started it with `pushType: .channel(id)`): it gets
    /// the channel's broadcasts, so its activity token for that printer, if
    /// it had one, is dropped (never both for one activity). Kept as long
    /// as an activity token (`activityLifetime`); the activity's end ends
    /// it. False: no such device.
    public func followByChannel(deviceID: String, printerPrefix: String) throws(Error) -> Bool {
        let now = clock.now().seconds
        return try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) in
                var found = false
                try database.query("SELECT 1 FROM devices WHERE id = ?", [.text(deviceID)]) { _ in found = true }
                guard found else { return false }
                try database.query("DELETE FROM activities WHERE device_id = ? AND printer_prefix = ?",
                                   [.text(deviceID), .text(printerPrefix)])
                try database.query("""
                    INSERT INTO channel_followers (device_id, printer_prefix, created_at) VALUES (?, ?, ?)
                    ON CONFLICT (device_id, printer_prefix) DO UPDATE SET created_at = excluded.created_at
                    """, [.text(deviceID), .text(printerPrefix), .real(now)])
                return true
            }
        }
    }

    /// Each device's printers followed by channel, within `activityLifetime`.
    func channelFollows() throws(SQLiteDatabase.Error) -> [String: Set<String>] {
        var follows: [String: Set<String>] = [:]
        try database.query(
            "SELECT device_id, printer_prefix FROM channel_followers WHERE created_at > ?",
            [.real(clock.now().seconds - Self.activityLifetime)]
        ) { row in
            if let device = row.text(0), let prefix = row.text(1) { follows[device, default: []].insert(prefix) }
        }
        return follows
    }
}
