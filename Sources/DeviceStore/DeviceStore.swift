import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PrintBridgeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The agent's memory on disk (SQLite, WAL): the phones registered with it,
/// what they follow and want, their Live Activity and push-to-start tokens,
/// and each printer's notification state, so a restart neither repeats nor
/// swallows a notification.
public final class DeviceStore: @unchecked Sendable {
    // @unchecked Sendable: `database` is only touched inside `lock.withLock`.
    let database: SQLiteDatabase
    private let lock = Mutex(())
    let clock: any EpochClock
    private let walSync: WALSync
    public let path: String

    public static let fileName = "printbridge.sqlite3"

    public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
        /// SQLite's (extended) result code when SQLite refused; nil for the
        /// store's own checks (a directory not writable, an empty file).
        public var resultCode: Int32?

        public init(description: String, resultCode: Int32? = nil) {
            self.description = description
            self.resultCode = resultCode
        }

        /// SQLITE_BUSY or SQLITE_LOCKED: another process held the store too long.
        public var isBusy: Bool { resultCode.map { $0 & 0xFF == SQLITE_BUSY || $0 & 0xFF == SQLITE_LOCKED } ?? false }
        /// SQLITE_CORRUPT or SQLITE_NOTADB: the file is damaged or not a store.
        public var isCorruption: Bool {
            resultCode.map { $0 & 0xFF == SQLITE_CORRUPT || $0 & 0xFF == SQLITE_NOTADB } ?? false
        }
    }

    /// Opens (creating and migrating if needed) the store in `directory`.
    /// Refuses, naming the file, a store this user cannot write (its files,
    /// not only the directory), an empty (0-byte) file and a damaged one:
    /// none is ever silently replaced by an empty store.
    public init(directory: String, clock: any EpochClock = SystemClock()) throws(Error) {
        guard access(directory, W_OK | X_OK) == 0 else {
            throw Error(description: "the state directory \(directory) is not writable (\(String(cString: strerror(errno)))); "
                + "set STATE_DIR to a directory this user may write")
        }
        let path = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
        try Self.checkFiles(path)
        self.path = path
        self.clock = clock
        walSync = WALSync(databasePath: path)
        let isNew = access(path, F_OK) != 0
        do throws(SQLiteDatabase.Error) {
            database = try SQLiteDatabase(path: path)
            // It holds whole device tokens: this user's alone (SQLite gives
            // the -wal and -shm files the same mode).
            if isNew { chmod(path, 0o600) }
            // NORMAL: commits are not fsynced inline (see WALSync), and SQLite
            // still syncs the WAL before each checkpoint.
            try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
            try Self.checkIntegrity(database)
            try migrate()
            walSync.schedule()
        } catch {
            throw Error(
                description: "the device store \(path) cannot be used: \(error.description)"
                    + (error.isCorruption ? "; move it aside to start with an empty store (every phone registers again), "
                        + "or restore a copy" : ""),
                resultCode: error.code)
        }
    }

    /// The store's files exist only as this user may write them, and the
    /// database is not an empty file.
    static func checkFiles(_ path: String) throws(Error) {
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0 else { continue }
            if access(file, R_OK | W_OK) != 0 {
                let owner = getpwuid(info.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(info.st_uid)"
                let me = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "uid \(geteuid())"
                throw Error(description: "the device store file \(file) is not writable by \(me) (it belongs to \(owner), "
                    + "mode \(String(info.st_mode & 0o777, radix: 8))); fix with: sudo chown \(me) \(path)*")
            }
            if file == path, info.st_size == 0 {
                throw Error(description: "the device store \(path) is an empty file (0 bytes: truncated, or not "
                    + "PrintBridge's); move it aside to start with an empty store (every phone registers again), "
                    + "or restore a copy")
            }
        }
    }

    /// SQLite's quick check (the store is small: milliseconds).
    static func checkIntegrity(_ database: SQLiteDatabase) throws(SQLiteDatabase.Error) {
        var problems: [String] = []
        try database.query("PRAGMA quick_check") { row in
            if let text = row.text(0), text != "ok" { problems.append(text) }
        }
        if !problems.isEmpty {
            throw SQLiteDatabase.Error("damaged: \(problems.prefix(3).joined(separator: "; "))", code: SQLITE_CORRUPT)
        }
    }

    /// Changes whenever another connection (another process, such as
    /// `printbridge devices add`) commits to the store: compare to notice it.
    public func dataVersion() throws(Error) -> Int {
        try run { () throws(SQLiteDatabase.Error) in
            var version = 0
            try database.query("PRAGMA data_version") { version = $0.integer(0) }
            return version
        }
    }

    /// The schema version on disk.
    public var schemaVersion: Int {
        lock.withLock { _ in (try? userVersion()) ?? 0 }
    }

    private func userVersion() throws(SQLiteDatabase.Error) -> Int {
        var version = 0
        try database.query("PRAGMA user_version") { version = $0.integer(0) }
        return version
    }

    private func migrate() throws(SQLiteDatabase.Error) {
        let current = try userVersion()
        guard current <= StoreSchema.migrations.count else {
            throw SQLiteDatabase.Error(
                "the device store \(path) has schema version \(current), newer than this PrintBridge knows "
                    + "(\(StoreSchema.migrations.count)); use a newer PrintBridge or another STATE_DIR", code: nil)
        }
        for (index, sql) in StoreSchema.migrations.enumerated() where index >= current {
            try database.transaction { () throws(SQLiteDatabase.Error) in
                try database.execute(sql)
                try database.execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }

    deinit {
        walSync.syncNow()
    }

    func run<T>(_ body: () throws(SQLiteDatabase.Error) -> T) throws(Error) -> T {
        let result: Result<T, SQLiteDatabase.Error> = lock.withLock { _ in
            let changesBefore = database.totalChanges
            defer { if database.totalChanges != changesBefore { walSync.schedule() } }
            do throws(SQLiteDatabase.Error) { return .success(try body()) } catch { return .failure(error) }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw Error(description: "device store \(path): \(error.description)", resultCode: error.code)
        }
    }

    // MARK: - Devices

    /// Every registered device with its printers, preferences and tokens.
    public func devices() throws(Error) -> [Device] {
        try run { () throws(SQLiteDatabase.Error) in
            var devices: [Device] = []
            try database.query("""
                SELECT id, apns_token, printer_name, disabled, push_to_start_token, language, \(Self.switchColumns),
                       \(Self.scheduleColumns)
                FROM devices ORDER BY created_at, rowid
                """) { row in
                var device = Device(id: row.text(0) ?? "", apnsToken: row.text(1) ?? "", printerName: row.text(2))
                device.isDisabled = row.flag(3)
                device.pushToStartToken = row.text(4)
                device.language = row.text(5)
                for (offset, entry) in NotificationPreferences.switches.enumerated() {
                    device.preferences[keyPath: entry.keyPath] = row.flag(Int32(6 + offset))
                }
                device.preferences.schedule = Self.schedule(row, from: Int32(6 + NotificationPreferences.switches.count))
                devices.append(device)
            }
            var index: [String: Int] = [:]
            for (position, device) in devices.enumerated() { index[device.id] = position }
            try database.query("SELECT device_id, printer_prefix FROM device_printers") { row in
                if let position = index[row.text(0) ?? ""], let prefix = row.text(1) {
                    devices[position].printerPrefixes.insert(prefix)
                }
            }
            try database.query(
                "SELECT device_id, printer_prefix, token FROM activities WHERE device_id IS NOT NULL AND created_at > ? ORDER BY created_at",
                [.real(clock.now().seconds - Self.activityLifetime)]
            ) { row in
                if let position = index[row.text(0) ?? ""], let prefix = row.text(1) {
                    devices[position].activityTokens[prefix] = row.text(2)
                }
            }
            for (device, prefixes) in try channelFollows() {
                if let position = index[device] { devices[position].channelPrinters = prefixes }
            }
            return devices
        }
    }

    /// One registered device with its printers, preferences and tokens, or
    /// nil (read with the others: a household has a few phones).
    public func device(id: String) throws(Error) -> Device? {
        try devices().first { $0.id == id }
    }

    /// The registered devices, then every live activity the app registered
    /// without a device id, each as a device of its own that gets its
    /// printer's Live Activity pushes and no alerts: what `run` sends to.
    public func devicesAndActivities() throws(Error) -> [Device] {
        let devices = try devices()
        return try run { () throws(SQLiteDatabase.Error) in
            var all = devices
            try database.query(
                "SELECT token, printer_prefix FROM activities WHERE device_id IS NULL AND created_at > ? ORDER BY created_at, token",
                [.real(clock.now().seconds - Self.activityLifetime)]
            ) { row in
                if let token = row.text(0), let prefix = row.text(1) {
                    all.append(.activity(token: token, printerPrefix: prefix))
                }
            }
            return all
        }
    }

    /// How long an activity token is kept: iOS ends a Live Activity after 8
    /// hours, and updates to an ended one change nothing; one hour more for
    /// the phone's and this machine's clocks.
    public static let activityLifetime: Double = 9 * 3600

    public struct Registration: Hashable, Sendable {
        public var deviceID: String
        /// False when the token was already registered (the device was updated).
        public var created: Bool
    }

    /// Registers a phone, or updates the one with this token (never a duplicate).
    ///
    /// As the app does it: a `printerPrefix` is the phone's printer (the app
    /// re-registers when its user picks another one), and `printerName` is
    /// that printer's name; both replace what the phone had, as in the seed.
    /// `printerPrefixes` is PrintBridge's extension for following several
    /// printers: exactly those. With neither, the printers and name stay as
    /// they are (a new device with none follows every printer).
    /// `language` (PrintBridge's extension) replaces the phone's language when given.
    public func register(
        apnsToken: String, haURL: String?, printerPrefix: String?, printerName: String?, environment: String? = nil,
        printerPrefixes: [String]? = nil, language: String? = nil
    ) throws(Error) -> Registration {
        let follows = printerPrefixes ?? printerPrefix.flatMap { $0.isEmpty ? nil : [$0] }
        let token = apnsToken.lowercased()
        let now = clock.now().seconds
        return try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) in
                var existing: String?
                try database.query("SELECT id FROM devices WHERE apns_token = ?", [.text(token)]) { existing = $0.text(0) }
                let id = existing ?? UUID().uuidString.lowercased()
                if existing == nil {
                    try database.query("""
                        INSERT INTO devices (id, apns_token, environment, ha_url, printer_name, created_at, last_seen, language)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """, [.text(id), .text(token), .optional(environment), .optional(haURL), .optional(printerName),
                              .real(now), .real(now), .optional(language)])
                } else {
                    // A new printer comes with its own name (or none): the old
                    // one named the printer it replaces.
                    try database.query("""
                        UPDATE devices SET ha_url = COALESCE(?, ha_url),
                               printer_name = CASE WHEN ? THEN ? ELSE COALESCE(?, printer_name) END,
                               environment = COALESCE(?, environment), last_seen = ?, disabled = 0,
                               language = COALESCE(?, language)
                        WHERE id = ?
                        """, [.optional(haURL), .integer(follows == nil ? 0 : 1), .optional(printerName),
                              .optional(printerName), .optional(environment), .real(now), .optional(language), .text(id)])
                }
                if let follows {
                    try database.query("DELETE FROM device_printers WHERE device_id = ?", [.text(id)])
                    for prefix in Set(follows) where !prefix.isEmpty {
                        try database.query("INSERT INTO device_printers (device_id, printer_prefix) VALUES (?, ?)",
                                           [.text(id), .text(prefix)])
                    }
                }
                return Registration(deviceID: id, created: existing == nil)
            }
        }
    }

    /// The preference columns, in `NotificationPreferences.switches` order.
    static var switchColumns: String { NotificationPreferences.switches.map(\.column).joined(separator: ", ") }

    /// The seed's settings body: only the given switches change, by their
    /// names in the app's JSON (`onStart`, …, `onPrinterError`, `onBedCooled`,
    /// `backgroundRefresh`, `snapshots`).
    public struct PreferencesPatch: Hashable, Sendable {
        public var switches: [String: Bool]
        /// The schedule's parts given (`SchedulePatch`).
        public var schedule = SchedulePatch()

        public init(
            notificationsEnabled: Bool? = nil, onStart: Bool? = nil, onComplete: Bool? = nil, onFailed: Bool? = nil,
            onPaused: Bool? = nil, onMilestone: Bool? = nil, onPrinterError: Bool? = nil, onBedCooled: Bool? = nil,
            backgroundRefresh: Bool? = nil, snapshots: Bool? = nil, onFirstLayer: Bool? = nil
        ) {
            let given: [(String, Bool?)] = [
                ("notificationsEnabled", notificationsEnabled), ("onStart", onStart), ("onComplete", onComplete),
                ("onFailed", onFailed), ("onPaused", onPaused), ("onMilestone", onMilestone),
                ("onPrinterError", onPrinterError), ("onBedCooled", onBedCooled),
                ("backgroundRefresh", backgroundRefresh), ("snapshots", snapshots), ("onFirstLayer", onFirstLayer),
            ]
            switches = Dictionary(uniqueKeysWithValues: given.compactMap { name, value in value.map { (name, $0) } })
        }

        /// Every switch as `preferences` has it.
        public init(_ preferences: NotificationPreferences) {
            switches = Dictionary(uniqueKeysWithValues: NotificationPreferences.switches.map {
                ($0.name, preferences[keyPath: $0.keyPath])
            })
            schedule = SchedulePatch(preferences.schedule)
        }
    }

    /// Applies a settings patch; false when there is no such device.
    public func updatePreferences(deviceID: String, _ patch: PreferencesPatch) throws(Error) -> Bool {
        let set = NotificationPreferences.switches.compactMap { entry in
            patch.switches[entry.name].map { (entry.column, SQLiteDatabase.Value.flag($0)) }
        } + patch.schedule.assignments
        return try run { () throws(SQLiteDatabase.Error) in
            var found = false
            try database.query("SELECT 1 FROM devices WHERE id = ?", [.text(deviceID)]) { _ in found = true }
            guard found, !set.isEmpty else { return found }
            try database.query(
                "UPDATE devices SET " + set.map { "\($0.0) = ?" }.joined(separator: ", ") + " WHERE id = ?",
                set.map(\.1) + [.text(deviceID)])
            return true
        }
    }

    /// Forgets a device and its tokens; false when there was none.
    public func removeDevice(id: String) throws(Error) -> Bool {
        try run { () throws(SQLiteDatabase.Error) in
            try database.query("DELETE FROM devices WHERE id = ?", [.text(id)])
            return database.changes > 0
        }
    }

    /// Keeps a Live Activity update token for its printer: every token is
    /// kept (once), each gets its printer's updates and end. With a device id
    /// (PrintBridge's extension) the activity is that phone's and replaces
    /// its previous one for that printer; false when there is no such device.
    /// Tokens past `activityLifetime` are dropped here.
    public func setActivityToken(_ token: String, printerPrefix: String, deviceID: String?) throws(Error) -> Bool {
        let now = clock.now().seconds
        return try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) in
                if let deviceID {
                    var found = false
                    try database.query("SELECT 1 FROM devices WHERE id = ?", [.text(deviceID)]) { _ in found = true }
                    guard found else { return false }
                    try database.query("DELETE FROM activities WHERE device_id = ? AND printer_prefix = ?",
                                       [.text(deviceID), .text(printerPrefix)])
                    // Never both for one activity: a token replaces following by channel.
                    try database.query("DELETE FROM channel_followers WHERE device_id = ? AND printer_prefix = ?",
                                       [.text(deviceID), .text(printerPrefix)])
                }
                try database.query("DELETE FROM activities WHERE created_at <= ?", [.real(now - Self.activityLifetime)])
                try database.query("""
                    INSERT INTO activities (token, printer_prefix, device_id, created_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (token) DO UPDATE SET printer_prefix = excluded.printer_prefix,
                        device_id = COALESCE(excluded.device_id, device_id), created_at = excluded.created_at
                    """, [.text(token.lowercased()), .text(printerPrefix), .optional(deviceID), .real(now)])
                return true
            }
        }
    }

    /// Keeps (or with nil clears) a device's push-to-start token. False: no such device.
    public func setPushToStartToken(_ token: String?, deviceID: String) throws(Error) -> Bool {
        try run { () throws(SQLiteDatabase.Error) in
            try database.query("UPDATE devices SET push_to_start_token = ? WHERE id = ?",
                               [.optional(token?.lowercased()), .text(deviceID)])
            return database.changes > 0
        }
    }

    /// APNs's verdict on a token, made permanent: a dead device token deletes
    /// its device, a wrong one disables it; refused activity and push-to-start
    /// tokens are dropped.
    public func applyTokenRejection(token: String, action: PushOutcome.TokenAction) throws(Error) {
        let token = token.lowercased()
        try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) in
                switch action {
                case .remove: try database.query("DELETE FROM devices WHERE apns_token = ?", [.text(token)])
                case .disable: try database.query("UPDATE devices SET disabled = 1 WHERE apns_token = ?", [.text(token)])
                }
                try database.query("DELETE FROM activities WHERE token = ?", [.text(token)])
                try database.query("UPDATE devices SET push_to_start_token = NULL WHERE push_to_start_token = ?", [.text(token)])
            }
        }
    }
}
