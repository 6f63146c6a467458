// The statistics' scale target (the issue): ten years of a busy farm — 10
// printers × 20 prints a day × 3,650 days, ~730,000 prints — written
// through `DeviceStore.commit(prints:)`, then the API's statistics queries
// on it timed: a year by weeks (every printer, one printer) and a month by
// days in Berlin time, and a year in Asia/Kolkata (+5:30). Beside them the
// floor (counting that year's rows and nothing else) and the same count
// without the index; the statements the store ran for a query (traced from
// its own connection), each timed alone with its VM steps; and the query
// plans. Prints a report, then one JSON line of the figures. Run by
// scripts/bench/statistics_benchmark.py; not installed.
//
// usage: StatisticsBenchmark [--store DIR] [--runs 30] [--days 3650] [--printers 10] [--per-day 20] [--any-material]
//        StatisticsBenchmark --store DIR --query-once | --query-none   (for callgrind: one query, or none)
import CSQLite
import DeviceStore
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Arguments and helpers

func argument(_ name: String, default value: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let number = Int(arguments[index + 1])
    else { return value }
    return number
}

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func flag(_ name: String) -> Bool { CommandLine.arguments.contains(name) }

/// A line on stderr (progress, failures): stdout is the report.
func note(_ line: String) {
    let text = line + "\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}

func fail(_ message: String) -> Never {
    note("StatisticsBenchmark: \(message)")
    exit(1)
}

func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

func fixed(_ value: Double, _ digits: Int = 2) -> String {
    guard value.isFinite else { return "-" }
    if digits == 0 { return String(Int(value.rounded())) }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
    } else if digits > 0 {
        text += "." + String(repeating: "0", count: digits)
    }
    return text
}

func padded(_ text: String, _ width: Int, left: Bool = false) -> String {
    let pad = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + pad : pad + text
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}

/// xorshift64*: the same prints from the same seed on every machine.
struct Random {
    var state: UInt64

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }

    /// 0 ..< n.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// An index into `weights` (percentages or any shares), drawn by weight.
    mutating func pick(_ weights: [Int]) -> Int {
        var roll = below(weights.reduce(0, +))
        for (index, weight) in weights.enumerated() {
            if roll < weight { return index }
            roll -= weight
        }
        return weights.count - 1
    }
}

// MARK: - The farm

/// The store ends here ("now"), fixed so every run builds the same store:
/// 2026-11-01T00:00Z.
let storeEnd: Int64 = 1_793_491_200

/// Europe/Berlin's real offsets from 2024-10-27 on (python3 zoneinfo): CET
/// +1 h, CEST +2 h from the last Sunday of March 01:00Z to the last Sunday of
/// October 01:00Z.
let berlin = LocalClock(zone: "Europe/Berlin", periods: [
    .init(start: 1_729_990_800, offset: 3600),  // 2024-10-27 01:00Z
    .init(start: 1_743_296_400, offset: 7200),  // 2025-03-30 01:00Z
    .init(start: 1_761_440_400, offset: 3600),  // 2025-10-26 01:00Z
    .init(start: 1_774_746_000, offset: 7200),  // 2026-03-29 01:00Z
    .init(start: 1_792_890_000, offset: 3600),  // 2026-10-25 01:00Z
    .init(start: 1_806_195_600, offset: 7200),  // 2027-03-28 01:00Z
])

/// The ranges the API is asked for, in Berlin time: 52 whole weeks (Monday
/// 2025-11-03 00:00 CET to Monday 2026-11-02 00:00 CET), and October 2026
/// (its 25th is 25 hours long).
let yearFrom: Int64 = 1_762_124_400
let yearTo: Int64 = 1_793_574_000
let monthFrom: Int64 = 1_790_805_600
let monthTo: Int64 = 1_793_487_600

struct Farm {
    var days: Int
    var printers: Int
    var perDay: Int
    /// Each spool of any material (the worst case for the material
    /// roll-ups); else each printer prints from the four spools loaded in
    /// its AMS, one of which is changed about once a week.
    var anyMaterial: Bool

    /// "x1c_00m09a350100101" …: Bambu-style prefixes, one per printer.
    func prefix(_ printer: Int) -> String {
        "x1c_00m09a3501001" + (printer < 9 ? "0" : "") + String(printer + 1)
    }

    var total: Int { days * printers * perDay }

    /// What the store holds, written beside it: a store built with other
    /// parameters is not reused.
    var marker: String {
        "StatisticsBenchmark days=\(days) printers=\(printers) per-day=\(perDay) end=\(storeEnd) seed=1"
            + " materials=\(anyMaterial ? "any" : "ams")"
    }

    static let errors = [
        "print error 0300-8003", "print error 0300-4000", "print error 0700-8011", "print error 0C00-8001",
        "print error 0500-4038", "print error 1200-8002",
    ]
    static let types = ["PLA", "PETG", "ABS", "TPU"]
    static let colors = ["#FFFFFFFF", "#000000FF", "#F72323FF", "#0A2CA5FF", "#FEC600FF", "#898989FF"]

    /// What the generator carries from day to day.
    struct State {
        var random: Random
        /// Every print's start, by printer (a printer's prints have distinct ids).
        var starts: Set<Int64>
        /// Each printer's four loaded spools.
        var ams: [[Material]]
    }

    static func spool(_ random: inout Random) -> Material {
        Material(type: types[random.pick([55, 25, 12, 8])], color: colors[random.below(colors.count)])
    }

    func start() -> State {
        var random = Random(state: 0x9E37_79B9_7F4A_7C15)
        let ams = (0..<printers).map { _ in (0..<4).map { _ in Self.spool(&random) } }
        return State(random: random, starts: Set(minimumCapacity: total), ams: ams)
    }

    /// One day's prints of every printer, in the order they ended: each
    /// printer ends one print in each of `perDay` equal slots of the day.
    /// Durations 20 min–14 h (mostly under an hour); 1 in 10 paused;
    /// outcomes 85 % complete, 8 % failed (with an error), 5 % cancelled,
    /// 2 % abandoned; 7 in 10 with material (1–4 spools).
    func prints(day: Int, state: inout State) -> [PrintRecord] {
        let dayStart = storeEnd - Int64(days - day) * 86_400
        let slot = 86_400 / perDay
        var records: [PrintRecord] = []
        records.reserveCapacity(printers * perDay)
        for printer in 0..<printers {
            let prefix = prefix(printer)
            for spool in 0..<4 where state.random.below(28) == 0 { state.ams[printer][spool] = Self.spool(&state.random) }
            for index in 0..<perDay {
                let ended = Double(dayStart + Int64(index * slot + state.random.below(slot))) + Double(state.random.below(1000)) / 1000
                var seconds: Int
                switch state.random.pick([70, 22, 6, 2]) {
                case 0: seconds = 1200 + state.random.below(2400)  // 20–60 min
                case 1: seconds = 3600 + state.random.below(3600)  // 1–2 h
                case 2: seconds = 7200 + state.random.below(14_400)  // 2–6 h
                default: seconds = 21_600 + state.random.below(28_800)  // 6–14 h
                }
                // A printer's prints have distinct starts (their ids).
                var start = Int64(ended) - Int64(seconds)
                while !state.starts.insert(Int64(printer) << 40 | start).inserted { start -= 1 }
                let outcome: PrintRecord.Outcome = [.complete, .failed, .cancelled, .abandoned][state.random.pick([85, 8, 5, 2])]
                let paused = state.random.below(10) == 0 ? Double(30 + state.random.below(7200)) : 0
                let progress = outcome == .complete ? 100 : Double(state.random.below(100))
                let layers = 50 + state.random.below(1450)
                var materials: [MaterialUse] = []
                if state.random.below(10) < 7 {
                    let spools = 1 + state.random.pick([60, 25, 10, 5])
                    let first = state.random.below(4)
                    let grams = Double(seconds) / 3600 * Double(8 + state.random.below(12)) * progress / 100
                    for spool in 0..<spools {
                        let share = grams / Double(spools) * (0.5 + state.random.unit())
                        let material = anyMaterial ? Self.spool(&state.random) : state.ams[printer][(first + spool) % 4]
                        materials.append(MaterialUse(
                            type: material.type, color: material.color,
                            grams: (share * 100).rounded() / 100, meters: (share / 2.98 * 100).rounded() / 100))
                    }
                }
                records.append(PrintRecord(
                    printID: "\(prefix)-\(start)", printer: prefix, printerName: "X1C \(printer + 1)",
                    file: "part-\(state.random.below(400)).3mf", startedAt: EpochTime(seconds: Double(start)),
                    endedAt: EpochTime(seconds: ended), outcome: outcome,
                    reason: outcome == .failed ? Self.errors[state.random.pick([40, 20, 15, 10, 10, 5])] : nil,
                    progress: progress, currentLayer: Int(Double(layers) * progress / 100), totalLayers: layers,
                    pausedSeconds: paused, materials: materials))
            }
        }
        return records.sorted { $0.endedAt < $1.endedAt }
    }
}

// MARK: - A plain connection to the same file (the floor, plans, each statement alone)

/// The store's file opened with the C API, beside the store's own
/// connection: what DeviceStore does not expose (the floor, plans, its
/// statements run alone).
final class Connection {
    let handle: OpaquePointer

    init(path: String) {
        var connection: OpaquePointer?
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let connection else {
            fail("cannot open \(path)")
        }
        handle = connection
        sqlite3_busy_timeout(handle, 5000)
        sqlite3_trace_v2(handle, 0, nil, nil)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs `sql` with integer bindings; `row` sees each result row.
    func query(_ sql: String, _ bindings: [Int64] = [], row: (OpaquePointer) -> Void = { _ in }) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            fail("\(String(cString: sqlite3_errmsg(handle))) in: \(sql)")
        }
        defer { sqlite3_finalize(statement) }
        for (index, value) in bindings.enumerated() { sqlite3_bind_int64(statement, Int32(index + 1), value) }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: row(statement)
            case SQLITE_DONE: return
            default: fail("\(String(cString: sqlite3_errmsg(handle))) in: \(sql)")
            }
        }
    }

    func integer(_ sql: String, _ bindings: [Int64] = []) -> Int64 {
        var value: Int64 = 0
        query(sql, bindings) { value = sqlite3_column_int64($0, 0) }
        return value
    }

    /// EXPLAIN QUERY PLAN's lines, indented as SQLite nests them.
    func plan(_ sql: String, _ bindings: [Int64]) -> [String] {
        var depth: [Int32: Int] = [0: 0]
        var lines: [String] = []
        query("EXPLAIN QUERY PLAN " + sql, bindings) { row in
            let id = sqlite3_column_int(row, 0)
            let level = (depth[sqlite3_column_int(row, 1)] ?? 0) + 1
            depth[id] = level
            lines.append(String(repeating: "  ", count: level) + String(cString: sqlite3_column_text(row, 3)))
        }
        return lines
    }
}

// MARK: - The store's own statements, traced

/// What the store's connection ran while `tracing` is set: each statement
/// as written (sqlite3_sql) and with its values in it (sqlite3_expanded_sql),
/// and SQLite's virtual-machine steps (a count of the work, the same on any
/// machine; SQLite's own profile clock counts whole milliseconds, so each
/// statement is timed alone instead). Traced rather than copied from
/// DeviceStore+Statistics.swift, so the statements timed and explained are
/// always the ones the store runs.
struct TracedStatement {
    var template: String
    var sql: String
    var steps: Int
}

nonisolated(unsafe) var tracing = false
nonisolated(unsafe) var traced: [TracedStatement] = []

nonisolated(unsafe) let traceStatement: @convention(c) (UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?)
    -> Int32 = { _, _, statement, _ in
        guard let statement else { return 0 }
        let handle = OpaquePointer(statement)
        // Read and reset: the steps of this run alone (the store keeps its statements).
        let steps = Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_VM_STEP, 1))
        guard tracing else { return 0 }
        let expanded = sqlite3_expanded_sql(handle)
        defer { sqlite3_free(expanded) }
        traced.append(TracedStatement(
            template: sqlite3_sql(handle).map { String(cString: $0) } ?? "", sql: expanded.map { String(cString: $0) } ?? "",
            steps: steps))
        return 0
    }

/// Every connection opened after `traceConnections()` traces its
/// statements (SQLite runs its automatic extensions at each open); the
/// plain connection turns it off for its own.
nonisolated(unsafe) let traceOnOpen: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, OpaquePointer?)
    -> Int32 = { connection, _, _ in
        sqlite3_trace_v2(connection, UInt32(SQLITE_TRACE_PROFILE), traceStatement, nil)
    }

func traceConnections() {
    // As the store configures SQLite before its first connection
    // (registering initialises SQLite, after which it cannot).
    _ = pb_sqlite_config_pagecache_on_demand()
    sqlite3_auto_extension(unsafeBitCast(traceOnOpen, to: (@convention(c) () -> Void).self))
}

/// The store's statements while `body` runs.
func statements(_ body: () throws -> Void) rethrows -> [TracedStatement] {
    traced = []
    tracing = true
    defer { tracing = false }
    try body()
    return traced
}

// MARK: - Timing

struct Timing {
    var samples: [Double]  // ms, sorted
    /// CPU time (user + system) per run, ms: below the wall time when the
    /// machine's other work (or the hypervisor) took the CPU meanwhile.
    var cpu: Double

    var min: Double { samples.first ?? 0 }
    var median: Double { samples.isEmpty ? 0 : samples[samples.count / 2] }
    var p95: Double { samples.isEmpty ? 0 : samples[Swift.min(samples.count - 1, Int(Double(samples.count) * 0.95))] }

    var line: String { padded(fixed(min), 9) + padded(fixed(median), 9) + padded(fixed(p95), 9) + padded(fixed(cpu), 9) }
    var json: String { #"{"min_ms":\#(min),"median_ms":\#(median),"p95_ms":\#(p95),"cpu_ms":\#(cpu)}"# }
}

/// This process's CPU time so far, ms.
func cpuTime() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    func ms(_ time: timeval) -> Double { Double(time.tv_sec) * 1000 + Double(time.tv_usec) / 1000 }
    return ms(usage.ru_utime) + ms(usage.ru_stime)
}

/// `body` run `warmUps` times unmeasured, then `runs` times measured.
func measure(runs: Int, warmUps: Int = 3, _ body: () throws -> Void) rethrows -> Timing {
    for _ in 0..<warmUps { try body() }
    var samples: [Double] = []
    let cpuStart = cpuTime()
    for _ in 0..<runs {
        let start = now()
        try body()
        samples.append((now() - start) * 1000)
    }
    return Timing(samples: samples.sorted(), cpu: (cpuTime() - cpuStart) / Double(runs))
}

// MARK: - Building the store

let farm = Farm(
    days: argument("--days", default: 3650), printers: argument("--printers", default: 10),
    perDay: argument("--per-day", default: 20), anyMaterial: flag("--any-material"))
let runs = argument("--runs", default: 30)
let queryOnce = flag("--query-once")
let queryNone = flag("--query-none")
guard farm.days > 0, (1...99).contains(farm.printers), (1...1440).contains(farm.perDay), runs > 0 else {
    fail("--days, --printers (1–99), --per-day (1–1440) and --runs must be positive")
}

let keep = argument("--store")
let directory: String
if let keep {
    mkdir(keep, 0o755)
    directory = keep
} else {
    var template = Array("/tmp/printbridge-stats-bench-XXXXXX".utf8CString)
    directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
}
let storePath = directory + "/" + DeviceStore.fileName
let markerPath = directory + "/statistics-benchmark.txt"

func readMarker() -> String? {
    guard let file = fopen(markerPath, "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 512)
    guard fgets(&line, Int32(line.count), file) != nil else { return nil }
    return line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }.trimmingSuffix("\n")
}

func writeMarker(_ text: String) {
    guard let file = fopen(markerPath, "w") else { fail("cannot write \(markerPath)") }
    fputs(text + "\n", file)
    fclose(file)
}

let clock = ManualClock(EpochTime(seconds: Double(storeEnd)))
var buildSeconds: Double?
let reuse = readMarker() == farm.marker && fileSize(storePath) > 0
if !reuse {
    if queryOnce || queryNone { fail("--query-once and --query-none need a built store (--store DIR)") }
    // A store this program did not build (no marker) is never deleted.
    if fileSize(storePath) > 0 && readMarker() == nil {
        fail("\(storePath) exists and was not built by this benchmark; name another --store")
    }
    for file in [storePath, storePath + "-wal", storePath + "-shm"] { unlink(file) }
    writeMarker("building")
    note("building \(farm.total) prints (\(farm.printers) printers × \(farm.perDay) a day × \(farm.days) days) "
        + "in \(directory), one commit per day...")
    let start = now()
    do {
        let store = try DeviceStore(directory: directory, clock: clock)
        var state = farm.start()
        for day in 0..<farm.days {
            try store.commit(prints: farm.prints(day: day, state: &state))
            if (day + 1) % 365 == 0 {
                note("  \(day + 1) days, \(fixed(now() - start, 1)) s")
            }
        }
    }  // closed: the WAL checkpointed into the file
    buildSeconds = now() - start
    writeMarker(farm.marker)
}

// MARK: - Opening it, as the agent does at start-up

if !queryOnce && !queryNone { traceConnections() }
let openStart = now()
let store: DeviceStore
do { store = try DeviceStore(directory: directory, clock: clock) } catch { fail("\(error)") }
let openMS = (now() - openStart) * 1000

func yearWeekly(printer: String?) throws -> Statistics {
    Statistics(
        counts: try store.statisticsCounts(printer: printer, from: yearFrom, to: yearTo, clock: berlin),
        printer: printer, from: yearFrom, to: yearTo, clock: berlin, bucket: .week)
}

if queryNone { exit(0) }
if queryOnce {
    let statistics = try yearWeekly(printer: nil)
    print("one query: \(statistics.totals.prints) prints in \(statistics.series.count) weeks")
    exit(0)
}

// MARK: - Size

let connection = Connection(path: storePath)
connection.query("PRAGMA wal_checkpoint(TRUNCATE)")
let storeBytes = fileSize(storePath)
let walBytes = fileSize(storePath + "-wal")
let printCount = connection.integer("SELECT count(*) FROM print_stats")
let materialRows = connection.integer("SELECT count(*) FROM print_material")
let bytesPerPrint = Double(storeBytes + walBytes) / Double(max(1, printCount))
print("StatisticsBenchmark: \(farm.printers) printers × \(farm.perDay) prints a day × \(farm.days) days, "
    + "ending 2026-11-01T00:00Z, material \(farm.anyMaterial ? "of any of the 24 kinds" : "from each printer's 4 loaded spools"); "
    + "\(runs) runs after 3 warm-ups; SQLite \(String(cString: sqlite3_libversion()))")
if let buildSeconds {
    print("built in \(fixed(buildSeconds, 1)) s (\(Int(Double(farm.total) / buildSeconds)) prints/s, "
        + "\(farm.days) commits of \(farm.printers * farm.perDay) prints)")
} else {
    print("store reused: \(directory)")
}
print("store: \(printCount) prints, \(materialRows) material rows; \(storePath) \(fixed(Double(storeBytes) / 1e6, 1)) MB "
    + "+ -wal \(fixed(Double(walBytes) / 1e6, 1)) MB after a checkpoint; \(Int(bytesPerPrint.rounded())) bytes a print")
// Where the bytes are (the dbstat table, where SQLite has it).
var tableBytes: [(String, Int64)] = []
var hasDBStat = false
connection.query("SELECT 1 FROM pragma_compile_options WHERE compile_options = 'ENABLE_DBSTAT_VTAB'") { _ in hasDBStat = true }
if hasDBStat {
    connection.query("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC") { row in
        tableBytes.append((String(cString: sqlite3_column_text(row, 0)), sqlite3_column_int64(row, 1)))
    }
    print("  by table and index: " + tableBytes.prefix(6).map { "\($0.0) \(fixed(Double($0.1) / 1e6, 1)) MB" }
        .joined(separator: ", "))
}
print("store open (migration check, PRAGMA quick_check): \(fixed(openMS, 1)) ms")

// MARK: - The API's queries

/// Asia/Kolkata, +5:30 all year: a zone whose offset is not whole hours
/// (the store's hourly roll-ups cannot answer its days). Its same year.
let kolkata = LocalClock(zone: "Asia/Kolkata", periods: [.init(start: 0, offset: 19_800)])
let kolkataFrom: Int64 = 1_762_108_200
let kolkataTo: Int64 = 1_793_557_800

/// What the API does before it writes JSON.
func statistics(
    _ printer: String?, _ from: Int64, _ to: Int64, _ clock: LocalClock, _ bucket: Statistics.Bucket
) throws -> Statistics {
    Statistics(
        counts: try store.statisticsCounts(printer: printer, from: from, to: to, clock: clock),
        printer: printer, from: from, to: to, clock: clock, bucket: bucket)
}

let onePrinter = farm.prefix(0)
let checked = try yearWeekly(printer: nil)
let yearRows = connection.integer("SELECT count(*) FROM print_stats WHERE ended_at >= ? AND ended_at < ?", [yearFrom, yearTo])
guard checked.totals.prints == Int(yearRows), checked.series.count == 52 || farm.days < 364 else {
    fail("the year's statistics count \(checked.totals.prints) prints in \(checked.series.count) weeks; the table holds \(yearRows)")
}
print("one year by weeks, every printer: \(checked.totals.prints) prints in \(checked.series.count) weeks, "
    + "success \(fixed(100 * (checked.totals.successRate ?? 0), 1)) %, \(Int(checked.totals.printingSeconds / 3600)) h printing, "
    + "\(Int(checked.totals.grams / 1000)) kg, \(checked.materials.count) materials, \(checked.failures.count) failure reasons")

print("")
print(padded("query (statisticsCounts + Statistics, as the API)", 58, left: true) + padded("min ms", 9) + padded("median", 9)
    + padded("p95", 9) + padded("cpu/run", 9))
var results: [(key: String, label: String, timing: Timing)] = []
@MainActor func report(_ key: String, _ label: String, _ timing: Timing) {
    results.append((key, label, timing))
    print(padded(label, 58, left: true) + timing.line)
}
report("year_week_all", "one year by weeks, every printer", try measure(runs: runs) { _ = try yearWeekly(printer: nil) })
report("year_week_one", "one year by weeks, one printer", try measure(runs: runs) { _ = try yearWeekly(printer: onePrinter) })
report("year_week_all_kolkata", "one year by weeks, every printer, Asia/Kolkata", try measure(runs: runs) {
    _ = try statistics(nil, kolkataFrom, kolkataTo, kolkata, .week)
})
report("month_day_all", "one month by days, every printer", try measure(runs: runs) {
    _ = try statistics(nil, monthFrom, monthTo, berlin, .day)
})
report("month_day_one", "one month by days, one printer", try measure(runs: runs) {
    _ = try statistics(onePrinter, monthFrom, monthTo, berlin, .day)
})
let yearCounts = try store.statisticsCounts(printer: nil, from: yearFrom, to: yearTo, clock: berlin)
report("statistics_only", "  of which Statistics(...) from the counts (year, weeks)", measure(runs: runs) {
    _ = Statistics(counts: yearCounts, printer: nil, from: yearFrom, to: yearTo, clock: berlin, bucket: .week)
})

// The reference: reading the year's rows and nothing more (the same
// connection settings, the same timing); and, for contrast, the same read
// without the primary key's order (`+ended_at`: every row of the ten years).
let floorSQL = "SELECT count(*) FROM print_stats WHERE ended_at >= ? AND ended_at < ?"
let unindexedSQL = "SELECT count(*) FROM print_stats WHERE +ended_at >= ? AND +ended_at < ?"
print("")
print("reference (a plain connection to the same file)")
report("floor_year", "floor: count(*) of the year's print_stats rows (\(yearRows))", measure(runs: runs) {
    _ = connection.integer(floorSQL, [yearFrom, yearTo])
})
report("floor_year_columns", "floor: the year's rows, summing their columns", measure(runs: runs) {
    _ = connection.integer(
        "SELECT sum(ended_at - started_at) + sum(coalesce(paused, 0)) + sum(outcome) + sum(coalesce(grams, 0)) "
            + "+ sum(coalesce(meters, 0)) FROM print_stats WHERE ended_at >= ? AND ended_at < ?", [yearFrom, yearTo])
})
report("floor_year_unindexed", "the same count without the index (a full scan)", measure(runs: Swift.min(runs, 10), warmUps: 1) {
    _ = connection.integer(unindexedSQL, [yearFrom, yearTo])
})
@MainActor func median(_ key: String) -> Double { results.first { $0.key == key }?.timing.median ?? .nan }
print("the API's every-printer year by weeks: \(fixed(median("year_week_all") / median("floor_year"), 1))× the floor "
    + "(count), \(fixed(median("year_week_all") / median("floor_year_columns"), 2))× the floor summing the columns (medians)")

// The store's own statements for a query, traced, then run alone on the
// plain connection (the same statement with different values together):
// what each costs, and its plan.
func oneLine(_ sql: String) -> String { sql.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
/// Each statement's plan once: (the queries and numbers that ran it, one of its runs).
var plans: [(template: String, titles: [String], sql: String)] = []
for (key, label, printer, from, to, clock) in [
    ("all", "every printer, one year by weeks", nil, yearFrom, yearTo, berlin),
    ("one", "one printer, one year by weeks", onePrinter, yearFrom, yearTo, berlin),
    ("kolkata", "every printer, one year by weeks, Asia/Kolkata", nil, kolkataFrom, kolkataTo, kolkata),
] as [(String, String, String?, Int64, Int64, LocalClock)] {
    // The store's read transaction (BEGIN, COMMIT) is no statement of the query's own.
    let ran = try statements { _ = try statistics(printer, from, to, clock, .week) }.filter {
        !["BEGIN", "COMMIT"].contains(oneLine($0.template))
    }
    print("the store's statements: \(label) (\(ran.count) run, \(ran.reduce(0) { $0 + $1.steps }) VM steps)")
    var templates: [String] = []
    for statement in ran where !templates.contains(statement.template) { templates.append(statement.template) }
    for (index, template) in templates.enumerated() {
        let instances = ran.filter { $0.template == template }
        var rows = 0
        for instance in instances { connection.query(instance.sql) { _ in rows += 1 } }
        let table = oneLine(template).split(separator: " ").drop { $0 != "FROM" }.dropFirst().first.map(String.init) ?? "?"
        report(
            "statement_\(key)_\(index + 1)",
            "  #\(index + 1) \(table)\(instances.count > 1 ? " ×\(instances.count)" : ""): \(rows) rows, "
                + "\(instances.reduce(0) { $0 + $1.steps }) steps",
            measure(runs: runs) { for instance in instances { connection.query(instance.sql) } })
        if let known = plans.firstIndex(where: { $0.template == template }) {
            plans[known].titles.append("\(key) #\(index + 1)")
        } else {
            plans.append((template, ["\(key) #\(index + 1)"], instances[0].sql))
        }
    }
}

// MARK: - Plans

print("")
print("query plans (EXPLAIN QUERY PLAN)")
print("the floor, one year: \(floorSQL)")
for line in connection.plan(floorSQL, [yearFrom, yearTo]) { print(line) }
print("without the index: \(unindexedSQL)")
for line in connection.plan(unindexedSQL, [yearFrom, yearTo]) { print(line) }
print("the store's statements (all: every printer, one: one printer, kolkata: every printer in Asia/Kolkata; #: as above)")
for plan in plans {
    let text = oneLine(plan.sql)
    print("\(plan.titles.joined(separator: ", ")): \(text.count > 160 ? text.prefix(157) + "..." : text)")
    for line in connection.plan(plan.sql, []) { print(line) }
}

// MARK: - JSON

let figures = results.map { #""\#($0.key)":\#($0.timing.json)"# }.joined(separator: ",")
print(
    #"{"prints":\#(printCount),"year_rows":\#(yearRows),"build_seconds":\#(buildSeconds.map { String($0) } ?? "null"),"#
        + #""store_bytes":\#(storeBytes),"wal_bytes":\#(walBytes),"bytes_per_print":\#(bytesPerPrint),"open_ms":\#(openMS),"#
        + #""queries":{\#(figures)}}"#)
if keep == nil {
    for file in [storePath, storePath + "-wal", storePath + "-shm", markerPath] { unlink(file) }
    rmdir(directory)
}
