import CSQLite

/// One SQLite connection, owned here and closed in `deinit`. Not shared
/// between threads: `DeviceStore` serialises access to it.
final class SQLiteDatabase {
    private let handle: OpaquePointer

    struct Error: Swift.Error, CustomStringConvertible {
        var description: String
        /// SQLITE_CORRUPT or SQLITE_NOTADB: the file is damaged or not a database.
        var isCorruption = false
    }

    /// Whether SQLite allocates page cache as pages are used rather than 20
    /// pages at a connection's first read (pb_sqlite_config_pagecache_on_demand).
    /// Set once, by the first connection, before it initialises SQLite.
    static let pageCacheOnDemand = pb_sqlite_config_pagecache_on_demand() == SQLITE_OK

    init(path: String) throws(Error) {
        _ = Self.pageCacheOnDemand
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &connection, flags, nil)
        guard status == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close(connection)
            throw Error(description: "cannot open the device store \(path): \(message)")
        }
        handle = connection
        sqlite3_busy_timeout(handle, 5000)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs statements that return nothing.
    func execute(_ sql: String) throws(Error) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? lastError
            sqlite3_free(message)
            throw Error(description: text, isCorruption: Self.isCorruption(status))
        }
    }

    static func isCorruption(_ status: Int32) -> Bool {
        status & 0xFF == SQLITE_CORRUPT || status & 0xFF == SQLITE_NOTADB
    }

    var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    /// Prepared statements by their SQL, reused: the store runs the same few
    /// statements for every HA event, and parsing them each time cost more
    /// than running them. Bounded; statements beyond the bound are one-off.
    private var statements: [String: OpaquePointer] = [:]
    private static let statementCacheLimit = 64

    /// Runs one statement with `bindings`, calling `row` for each result row.
    func query(_ sql: String, _ bindings: [Value] = [], row: ((Row) -> Void)? = nil) throws(Error) {
        let cached = statements[sql]
        let statement: OpaquePointer
        if let cached {
            statement = cached
        } else {
            var prepared: OpaquePointer?
            let keep = statements.count < Self.statementCacheLimit
            let flags = keep ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
            let status = sqlite3_prepare_v3(handle, sql, -1, flags, &prepared, nil)
            guard status == SQLITE_OK, let prepared else {
                throw Error(description: "\(lastError) in: \(sql)", isCorruption: Self.isCorruption(status))
            }
            statement = prepared
            if keep { statements[sql] = prepared }
        }
        defer {
            if statements[sql] == statement {
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            } else {
                sqlite3_finalize(statement)
            }
        }
        for (index, value) in bindings.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .null: sqlite3_bind_null(statement, position)
            case .integer(let number): sqlite3_bind_int64(statement, position, Int64(number))
            case .real(let number): sqlite3_bind_double(statement, position, number)
            case .text(let text): sqlite3_bind_text(statement, position, text, -1, pb_sqlite_transient())
            }
        }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: row?(Row(statement: statement))
            case SQLITE_DONE: return
            case let status: throw Error(description: "\(lastError) in: \(sql)", isCorruption: Self.isCorruption(status))
            }
        }
    }

    /// Runs `body` in one transaction: all of it or none of it.
    func transaction<T>(_ body: () throws(Error) -> T) throws(Error) -> T {
        try query("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try query("COMMIT")
            return result
        } catch {
            try? query("ROLLBACK")
            throw error
        }
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Rows changed by this connection since it opened: a write happened when it moves.
    var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }

    enum Value {
        case null
        case integer(Int)
        case real(Double)
        case text(String)

        static func optional(_ text: String?) -> Value { text.map(Value.text) ?? .null }
        static func flag(_ value: Bool) -> Value { .integer(value ? 1 : 0) }
    }

    /// A result row, read by column index.
    struct Row {
        let statement: OpaquePointer

        func text(_ column: Int32) -> String? {
            guard let pointer = sqlite3_column_text(statement, column) else { return nil }
            return String(cString: pointer)
        }

        func integer(_ column: Int32) -> Int { Int(sqlite3_column_int64(statement, column)) }
        func real(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
        func flag(_ column: Int32) -> Bool { sqlite3_column_int64(statement, column) != 0 }
        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    }
}
