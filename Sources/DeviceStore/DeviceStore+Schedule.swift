import PrintBridgeCore

/// Each phone's `AlertSchedule` (issue 53): quiet hours, its milestones,
/// "minutes left" and the re-telling delay, in the `devices` table's
/// columns of migration 15.
extension DeviceStore {
    public typealias SchedulePatch = AlertSchedule.Patch

    /// The schedule columns, read after the switches.
    static var scheduleColumns: String {
        "quiet_start, quiet_end, quiet_zone, quiet_breakthrough, milestones, minutes_left, retell_after"
    }

    /// A row's schedule from `scheduleColumns` starting at column `first`.
    static func schedule(_ row: SQLiteDatabase.Row, from first: Int32) -> AlertSchedule {
        var schedule = AlertSchedule(retellAfterMinutes: row.integer(first + 6))
        if !row.isNull(first), !row.isNull(first + 1), let zone = row.text(first + 2) {
            schedule.quietHours = QuietHours(
                start: row.integer(first), end: row.integer(first + 1), timeZone: zone, breakthrough: row.flag(first + 3))
        }
        if let list = row.text(first + 4) {
            schedule.milestones = list.split(separator: ",").compactMap { Int($0) }
        }
        if !row.isNull(first + 5) { schedule.minutesLeft = row.integer(first + 5) }
        return schedule
    }
}

extension AlertSchedule.Patch {
    /// The columns it sets and their values.
    var assignments: [(String, SQLiteDatabase.Value)] {
        var set: [(String, SQLiteDatabase.Value)] = []
        if let quiet = quietHours {
            set += [
                ("quiet_start", quiet.map { .integer($0.start) } ?? .null),
                ("quiet_end", quiet.map { .integer($0.end) } ?? .null),
                ("quiet_zone", .optional(quiet?.timeZone)),
                ("quiet_breakthrough", .flag(quiet?.breakthrough ?? true)),
            ]
        }
        if let milestones {
            set.append(("milestones", .optional(milestones.map { $0.map(String.init).joined(separator: ",") })))
        }
        if let minutesLeft { set.append(("minutes_left", minutesLeft.map { .integer($0) } ?? .null)) }
        if let retellAfterMinutes { set.append(("retell_after", .integer(retellAfterMinutes))) }
        return set
    }
}
