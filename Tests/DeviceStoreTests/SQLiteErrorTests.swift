import CSQLite
@testable import DeviceStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SQLite's failures carry its result code, so the store can tell a
/// damaged file from a busy one and a person reads the code's name.
@Suite struct SQLiteErrorTests {
    @Test func aFileThatIsNotADatabaseIsCorruptionByItsCode() throws {
        let path = "/tmp/printbridge-notadb-\(getpid()).sqlite"
        defer { unlink(path) }
        let garbage = String(repeating: "not a database at all. ", count: 200)
        #expect(FILE.write(garbage, to: path))
        let database = try SQLiteDatabase(path: path)
        do {
            try database.query("SELECT count(*) FROM sqlite_master")
            Issue.record("read a file that is not a database")
        } catch {
            #expect(error.primaryCode == SQLITE_NOTADB)
            #expect(error.isCorruption && !error.isBusy)
            #expect(error.description.hasSuffix("(SQLITE_NOTADB)"), "\(error)")
        }
    }

    @Test func aWriterHeldOffPastTheBusyTimeoutIsBusyByItsCode() throws {
        let path = "/tmp/printbridge-busy-\(getpid()).sqlite"
        defer { unlink(path) }
        let holder = try SQLiteDatabase(path: path)
        try holder.execute("CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
        let other = try SQLiteDatabase(path: path)
        try other.execute("PRAGMA busy_timeout = 10")
        do {
            try other.query("BEGIN IMMEDIATE")
            Issue.record("two writers at once")
        } catch {
            #expect(error.isBusy && !error.isCorruption, "\(error)")
            #expect(error.description.hasSuffix("(SQLITE_BUSY)"), "\(error)")
        }
        try holder.execute("COMMIT")
    }

    @Test func theStoresOwnChecksHaveNoCode() {
        let error = SQLiteDatabase.Error("a schema newer than this build", code: nil)
        #expect(error.description == "a schema newer than this build")
        #expect(!error.isCorruption && !error.isBusy)
    }
}

private enum FILE {
    static func write(_ text: String, to path: String) -> Bool {
        guard let file = fopen(path, "w") else { return false }
        defer { fclose(file) }
        return fputs(text, file) >= 0
    }
}
