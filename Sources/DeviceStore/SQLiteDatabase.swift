import CSQLite

/// One SQLite connection, owned here and closed in `deinit`. Not shared
/// between threads: `DeviceStore` serialises access to it.
final class SQLiteDatabase {
    private let handle: OpaquePointer

    /// What SQLite said, with its result code (extended, as
    /// `sqlite3_extended_errcode` gives it); no code for the store's own
    /// checks (a schema newer than this build).
    struct Error: Swift.Error, CustomStringConvertible {
        var message: String
        var code: Int32?

        init(_ message: String, code: Int32?) {
            self.message = message
            self.code = code
        }

        /// The primary result code (the low byte of an extended one).
        var primaryCode: Int32? { code.map { $0 & 0xFF } }
        /// SQLITE_CORRUPT or SQLITE_NOTADB: the file is damaged or not a database.
        var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }
        /// SQLITE_BUSY or SQLITE_LOCKED: another connection held the database past the busy timeout.
        var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

        /// The code's name, e.g. "SQLITE_BUSY" (the primary name for an extended code).
        var codeName: String {
            switch primaryCode ?? 0 {
            case SQLITE_ERROR: return "SQLITE_ERROR"
            case SQLITE_PERM: return "SQLITE_PERM"
            case SQLITE_BUSY: return "SQLITE_BUSY"
            case SQLITE_LOCKED: return "SQLITE_LOCKED"
            case SQLITE_NOMEM: return "SQLITE_NOMEM"
            case SQLITE_READONLY: return "SQLITE_READONLY"
            case SQLITE_IOERR: return "SQLITE_IOERR"
            case SQLITE_CORRUPT: return "SQLITE_CORRUPT"
            case SQLITE_FULL: return "SQLITE_FULL"
            case SQLITE_CANTOPEN: return "SQLITE_CANTOPEN"
            case SQLITE_CONSTRAINT: return "SQLITE_CONSTRAINT"
            case SQLITE_NOTADB: return "SQLITE_NOTADB"
            default: return "SQLite result \(code ?? 0)"
            }
        }

        var description: String { code == nil ? message : "\(message) (\(codeName))" }
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
            throw Error("cannot open the device store \(path): \(message)", code: status)
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
            throw Error(text, code: extendedCode(or: status))
        }
    }

    /// The connection's extended code for the last failure, when it has one for `status`.
    private func extendedCode(or status: Int32) -> Int32 {
        let extended = sqlite3_extended_errcode(handle)
        return extended & 0xFF == status & 0xFF ? extended : status
    }

    var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    /// Prepared statements by their SQL, reused: the store runs the same few
    /// statements for every HA event, and parsing them each time cost more
    /// than running them. Bounded; statements beyond the bound are one-off.
    private var statements: [String: OpaquePointer] = [:]
    private static let statementCacheLimit = 64

    /// Runs one statement with `bindings`, calling `row` for each result row.
    /// The callback does not escape: what it captures is not boxed on the
    /// heap, which a query of tens of thousands of rows (the statistics) feels.
    func query(_ sql: String, _ bindings: [Value] = [], row: (Row) -> Void = { _ in }) throws(Error) {
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
                throw Error("\(lastError) in: \(sql)", code: extendedCode(or: status))
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
            case SQLITE_ROW: row(Row(statement: statement))
            case SQLITE_DONE: return
            case let status: throw Error("\(lastError) in: \(sql)", code: extendedCode(or: status))
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
