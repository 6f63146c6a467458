import PrintBridgeCore

/// Each printer's notification state: what was last notified, so a restart
/// neither repeats nor swallows an alert.
extension DeviceStore {
    /// Every printer's remembered notification state.
    public func notificationStates() throws(Error) -> [String: PrinterNotificationState] {
        try run { () throws(SQLiteDatabase.Error) in
            var states: [String: PrinterNotificationState] = [:]
            try database.query("""
                SELECT prefix, last_status, print_id, milestones_sent, milestone_reference, last_live_activity_push,
                       live_activity_due, held_status, held_due, held_file, told_errors, cleared_errors, errors_due,
                       bed_cooling_since, failure_announced, pause_told_to, silent_since, offline_due,
                       offline_told_to, paused_seconds, paused_since, spools_seen FROM printer_state
                """) { row in
                guard let prefix = row.text(0) else { return }
                let milestones = Set((row.text(3) ?? "").split(separator: ",").compactMap { Int($0) })
                func time(_ column: Int32) -> EpochTime? {
                    row.isNull(column) ? nil : EpochTime(seconds: row.real(column))
                }
                var state = PrinterNotificationState(
                    lastStatus: row.text(1).flatMap(PrintStatus.init(rawValue:)), printID: row.text(2),
                    milestonesSent: milestones,
                    milestoneReference: row.isNull(4) ? nil : row.real(4),
                    lastLiveActivityPush: time(5), liveActivityDue: time(6))
                // A held verdict is three columns: its status, when it is due, its file.
                if let status = row.text(7).flatMap(PrintStatus.init(rawValue:)), let due = time(8) {
                    state.held = .init(status: status, due: due, file: row.text(9))
                }
                // Codes are hex and "_" only, so "," and "@" separate safely.
                state.toldErrors = row.text(10).map { Set($0.split(separator: ",").map(String.init)) }
                for entry in (row.text(11) ?? "").split(separator: ",") {
                    let parts = entry.split(separator: "@")
                    if parts.count == 2, let seconds = Double(parts[1]) {
                        state.clearedErrors[String(parts[0])] = EpochTime(seconds: seconds)
                    }
                }
                state.errorsDue = time(12)
                state.bedCoolingSince = time(13)
                state.failureAnnounced = time(14)
                state.pauseToldTo = Self.ids(row.text(15) ?? "")
                if let since = time(16) {
                    state.silence = .init(since: since, due: time(17), toldTo: row.text(18).map(Self.ids))
                }
                state.pausedSeconds = row.isNull(19) ? nil : row.real(19)
                state.pausedSince = time(20)
                state.spoolsSeen = Self.spools(row.text(21) ?? "")
                states[prefix] = state
            }
            return states
        }
    }

    /// Writes printers' states (inside the caller's transaction).
    func writeStates(_ states: [String: PrinterNotificationState]) throws(SQLiteDatabase.Error) {
        let now = clock.now().seconds
        for (prefix, state) in states.sorted(by: { $0.key < $1.key }) {
            try database.query("""
                INSERT INTO printer_state (prefix, last_status, print_id, milestones_sent, milestone_reference,
                                           last_live_activity_push, live_activity_due, updated_at,
                                           held_status, held_due, held_file, told_errors, cleared_errors, errors_due,
                                           bed_cooling_since, failure_announced, pause_told_to, silent_since,
                                           offline_due, offline_told_to, paused_seconds, paused_since, spools_seen)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (prefix) DO UPDATE SET last_status = excluded.last_status, print_id = excluded.print_id,
                    milestones_sent = excluded.milestones_sent, milestone_reference = excluded.milestone_reference,
                    last_live_activity_push = excluded.last_live_activity_push,
                    live_activity_due = excluded.live_activity_due, updated_at = excluded.updated_at,
                    held_status = excluded.held_status, held_due = excluded.held_due, held_file = excluded.held_file,
                    told_errors = excluded.told_errors, cleared_errors = excluded.cleared_errors,
                    errors_due = excluded.errors_due, bed_cooling_since = excluded.bed_cooling_since,
                    failure_announced = excluded.failure_announced, pause_told_to = excluded.pause_told_to,
                    silent_since = excluded.silent_since, offline_due = excluded.offline_due,
                    offline_told_to = excluded.offline_told_to, paused_seconds = excluded.paused_seconds,
                    paused_since = excluded.paused_since, spools_seen = excluded.spools_seen
                """, [
                    .text(prefix), .optional(state.lastStatus?.rawValue), .optional(state.printID),
                    .text(state.milestonesSent.sorted().map(String.init).joined(separator: ",")),
                    state.milestoneReference.map(SQLiteDatabase.Value.real) ?? .null,
                    state.lastLiveActivityPush.map { .real($0.seconds) } ?? .null,
                    state.liveActivityDue.map { .real($0.seconds) } ?? .null, .real(now),
                    .optional(state.held?.status.rawValue), state.held.map { .real($0.due.seconds) } ?? .null,
                    .optional(state.held?.file),
                    .optional(state.toldErrors.map { $0.sorted().joined(separator: ",") }),
                    .text(state.clearedErrors.sorted { $0.key < $1.key }.map { "\($0.key)@\($0.value.seconds)" }
                        .joined(separator: ",")),
                    state.errorsDue.map { .real($0.seconds) } ?? .null,
                    state.bedCoolingSince.map { .real($0.seconds) } ?? .null,
                    state.failureAnnounced.map { .real($0.seconds) } ?? .null,
                    .text(Self.text(state.pauseToldTo)),
                    state.silence.map { .real($0.since.seconds) } ?? .null,
                    state.silence?.due.map { .real($0.seconds) } ?? .null,
                    .optional(state.silence?.toldTo.map(Self.text)),
                    state.pausedSeconds.map(SQLiteDatabase.Value.real) ?? .null,
                    state.pausedSince.map { .real($0.seconds) } ?? .null,
                    .text(Self.text(state.spoolsSeen)),
                ])
        }
    }

    /// Device ids (lower-case UUIDs) as one column: sorted, ","-separated.
    private static func text(_ ids: Set<String>) -> String { ids.sorted().joined(separator: ",") }

    private static func ids(_ text: String) -> Set<String> { Set(text.split(separator: ",").map(String.init)) }

    /// The spools seen feeding a print as one column: each "name<US>type<US>colour",
    /// separated by RS (control characters no integration writes in a name).
    private static func text(_ spools: [String: Material]) -> String {
        spools.sorted { $0.key < $1.key }.map { "\($0.key)\u{1F}\($0.value.type ?? "")\u{1F}\($0.value.color ?? "")" }
            .joined(separator: "\u{1E}")
    }

    private static func spools(_ text: String) -> [String: Material] {
        var spools: [String: Material] = [:]
        for entry in text.split(separator: "\u{1E}") {
            let parts = entry.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 else { continue }
            spools[parts[0]] = Material(type: parts[1].isEmpty ? nil : parts[1], color: parts[2].isEmpty ? nil : parts[2])
        }
        return spools
    }

    /// When PrintBridge began watching printers with this store: a print
    /// whose status became running after it, but that the store has no
    /// memory of, started while PrintBridge was down (the first time: set
    /// to now, and committed before anything is watched).
    public func watchingSince() throws(Error) -> EpochTime {
        try run { () throws(SQLiteDatabase.Error) in
            var since: Double?
            try database.query("SELECT value FROM store_meta WHERE key = 'watching_since'") { row in
                since = row.text(0).flatMap(Double.init)
            }
            if let since { return EpochTime(seconds: since) }
            let now = clock.now()
            try database.query(
                "INSERT OR REPLACE INTO store_meta (key, value) VALUES ('watching_since', ?)", [.text(String(now.seconds))])
            return now
        }
    }
}
