import DeviceStore
import PrintBridgeCore
import Testing

/// The print history on disk: saved with the change that ended the print,
/// never twice, bounded per printer, and back after a restart.
@Suite struct PrintHistoryStoreTests {
    func record(_ printer: String, _ n: Int, outcome: PrintRecord.Outcome = .complete) -> PrintRecord {
        PrintRecord(
            printID: "\(printer)-\(1_700_000_000 + n * 3600)", printer: printer, printerName: "X1C", file: "part-\(n).3mf",
            startedAt: EpochTime(seconds: Double(1_700_000_000 + n * 3600)),
            endedAt: EpochTime(seconds: Double(1_700_000_000 + n * 3600 + 1800)), outcome: outcome,
            reason: outcome == .failed ? "print error 0700-8006" : nil, progress: outcome == .complete ? 100 : 37.5,
            currentLayer: 120, totalLayers: outcome == .complete ? 120 : nil)
    }

    @Test func aRecordComesBackWholeAfterARestartAndSavingItAgainKeepsOne() throws {
        let temp = TemporaryStore()
        let failed = record("x1c", 1, outcome: .failed)
        var state = PrinterNotificationState()
        state.lastStatus = .failed
        do {
            let store = try temp.open()
            try store.commit(states: ["x1c": state], prints: [failed])
            // The same change seen again after a crash: the same print id.
            try store.commit(states: ["x1c": state], prints: [failed])
        }
        let store = try temp.open()
        #expect(try store.printHistory() == [failed])
        #expect(try store.printHistory(printer: "p1s").isEmpty)
        #expect(try store.notificationStates()["x1c"]?.lastStatus == .failed)
    }

    @Test func newestFirstAndTheLast500PerPrinterKept() throws {
        let temp = TemporaryStore()
        let store = try temp.open()
        for n in 0..<(DeviceStore.historyLimit + 10) {
            try store.commit(prints: [record("x1c", n)])
        }
        try store.commit(prints: [record("p1s", 0), record("p1s", 1)])
        let x1c = try store.printHistory(printer: "x1c", limit: 10_000)
        #expect(x1c.count == DeviceStore.historyLimit)
        #expect(x1c.first?.file == "part-509.3mf", "newest first")
        #expect(x1c.last?.file == "part-10.3mf", "the oldest ten went")
        #expect(try store.printHistory(printer: "p1s").map(\.file) == ["part-1.3mf", "part-0.3mf"], "another printer's untouched")
        #expect(try store.printHistory(limit: 3).map(\.printer) == ["x1c", "x1c", "x1c"])
    }
}
