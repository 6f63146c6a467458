// Test helper for DeviceStoreTests: registers devices in STATE_DIR (argv[1])
// as fast as it can, printing each committed count, until killed.
import DeviceStore

#if canImport(Glibc)
import Glibc
#endif

let directory = CommandLine.arguments[1]
let store = try DeviceStore(directory: directory)
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
