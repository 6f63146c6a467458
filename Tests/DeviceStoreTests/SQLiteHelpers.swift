import CSQLite

/// Sets a database's user_version directly (to simulate a newer PrintBridge).
func sqliteSetUserVersion(_ path: String, _ version: Int) -> Bool {
    var database: OpaquePointer?
    guard sqlite3_open(path, &database) == SQLITE_OK else { return false }
    defer { sqlite3_close(database) }
    return sqlite3_exec(database, "PRAGMA user_version = \(version)", nil, nil, nil) == SQLITE_OK
}

/// Runs SQL on a database file directly (to make a store of an earlier schema).
func sqliteExecute(_ path: String, _ sql: String) -> Bool {
    var database: OpaquePointer?
    guard sqlite3_open(path, &database) == SQLITE_OK else { return false }
    defer { sqlite3_close(database) }
    return sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK
}

/// PRAGMA integrity_check's answer ("ok" when the file is sound).
func sqliteIntegrityCheck(_ path: String) -> String {
    var database: OpaquePointer?
    guard sqlite3_open(path, &database) == SQLITE_OK else { return "cannot open" }
    defer { sqlite3_close(database) }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(database, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK else { return "cannot prepare" }
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return "no answer" }
    return String(cString: text)
}

/// Undoes schema 19 (alerts waiting to be told again), to make a store of an earlier schema.
let undoSchema19 = "DROP TABLE retells;\n"

/// Undoes schemas 19 and 18 (the first layer's switch), to make a store of an earlier schema.
let undoSchema18 = undoSchema19 + """
    ALTER TABLE devices DROP COLUMN on_first_layer;

    """

/// Undoes schemas 18 and 17 (when an alert was opened), to make a store of an earlier schema.
let undoSchema17 = undoSchema18 + """
    ALTER TABLE notifications DROP COLUMN opened_at;

    """

/// Undoes schemas 17 and 16 (alerts held for quiet hours), to make a store of an earlier schema.
let undoSchema16 = undoSchema17 + """
    DROP TABLE held_alerts;

    """

/// Undoes schemas 16 and 15 (each phone's alert schedule), to make a store of an earlier schema.
let undoSchema15 = undoSchema16 + """
    ALTER TABLE devices DROP COLUMN quiet_start;
    ALTER TABLE devices DROP COLUMN quiet_end;
    ALTER TABLE devices DROP COLUMN quiet_zone;
    ALTER TABLE devices DROP COLUMN quiet_breakthrough;
    ALTER TABLE devices DROP COLUMN milestones;
    ALTER TABLE devices DROP COLUMN minutes_left;
    ALTER TABLE devices DROP COLUMN retell_after;

    """

/// Undoes schemas 15 and 14 (broadcast channels), to make a store of an earlier schema.
let undoSchema14 = undoSchema15 + "DROP TABLE printer_channels; DROP TABLE channel_deletions; DROP TABLE channel_followers;\n"

/// Undoes schemas 14 and 13 (statistics), to make a store of an earlier schema.
let undoSchema13 = undoSchema14 + """
    ALTER TABLE print_history DROP COLUMN paused_seconds;
    ALTER TABLE print_history DROP COLUMN materials;
    ALTER TABLE printer_state DROP COLUMN paused_seconds;
    ALTER TABLE printer_state DROP COLUMN paused_since;
    ALTER TABLE printer_state DROP COLUMN spools_seen;
    DROP TABLE stats_names;
    DROP TABLE print_stats;
    DROP TABLE print_material;
    DROP TABLE print_days;
    DROP TABLE print_day_reasons;
    DROP TABLE print_day_material;
    DROP TABLE print_day_longest;
    DROP TABLE print_hours;

    """

/// The schema a store opened now has: migration 19 (alerts waiting to be told again) the latest.
let latestSchema = 19
