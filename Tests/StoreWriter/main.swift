// Test helper for DeviceStoreTests: registers devices in STATE_DIR (argv[1])
// as fast as it can, printing each committed count, until killed.
// With `--prints PREFIX` (the status page's tests): writes three ended
// prints of PREFIX, 3 and 6 days ago around noon UTC, and exits.
import DeviceStore
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

let directory = CommandLine.arguments[1]
let store = try DeviceStore(directory: directory)
if CommandLine.arguments.count == 4, CommandLine.arguments[2] == "--prints" {
    let prefix = CommandLine.arguments[3]
    let today = (SystemClock().now().seconds / 86_400).rounded(.down) * 86_400
    func print(_ daysAgo: Double, _ from: Double, _ to: Double, _ outcome: PrintRecord.Outcome, reason: String? = nil,
               materials: [MaterialUse] = []) -> PrintRecord {
        let start = today - daysAgo * 86_400 + from * 3600
        return PrintRecord(
            printID: "\(prefix)-\(Int(start))", printer: prefix, file: "seeded-\(Int(daysAgo))-\(Int(from)).3mf",
            startedAt: EpochTime(seconds: start), endedAt: EpochTime(seconds: today - daysAgo * 86_400 + to * 3600),
            outcome: outcome, reason: reason, pausedSeconds: 0, materials: materials)
    }
    try store.commit(prints: [
        print(3, 9, 12, .complete, materials: [MaterialUse(type: "PLA", color: "#FFFFFFFF", grams: 42)]),
        print(3, 12.5, 13, .failed, reason: "print error 0300-8003"),
        print(6, 11, 12, .cancelled, reason: "cancelled by the user"),
    ])
    exit(0)
}
var count = 0
while true {
    let hex = String(count, radix: 16)
    let token = String(repeating: "0", count: 64 - hex.count) + hex
    _ = try store.register(apnsToken: token, haURL: "http://ha:8123", printerPrefix: "x1c", printerName: nil)
    try store.commit(states: ["x1c": .init(lastStatus: .running, printID: "print-\(count)")])
    count += 1
    print(count)
    fflush(nil)
}
