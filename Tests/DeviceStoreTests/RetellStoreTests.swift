import DeviceStore
import PrintBridgeCore
import Testing

/// The alerts waiting to be told again (issue 53) in the store: every field
/// back after a restart, replaced whole by a change that altered them, left
/// as they are by one that did not.
@Suite struct RetellStoreTests {
    func retell(_ event: Push.Event, due: Double, errorText: String? = nil) -> PushPlanner.Retell {
        var push = Push(
            kind: .alert, event: event, printerPrefix: "x1c", deviceID: "d1", token: phone, tokenKind: .device,
            topic: "com.example.app", priority: 10, collapseID: "x1c.\(event.rawValue)",
            expiration: EpochTime(seconds: 1_795_251_600),
            payload: Array(#"{"aps":{"alert":{"title":"Print Failed ⚠️"}},"printerState":{"printId":"x1c-1"}}"#.utf8),
            createdAt: EpochTime(seconds: 1_795_165_200.25))
        push.apnsID = "8a1b2c3d-0000-8000-8000-00000000000\(Int(due) % 10)"
        return PushPlanner.Retell(
            push: push, printID: event == .failed ? "x1c-1" : nil, errorText: errorText, due: EpochTime(seconds: due))
    }

    @Test func whatWaitsIsKeptWholeAndReplacedByAChangeThatAlteredIt() throws {
        let temp = TemporaryStore()
        let waiting = [retell(.failed, due: 1_795_166_101), retell(.printerError, due: 1_795_166_102, errorText: "AMS jam")]
        do {
            let store = try temp.open()
            #expect(try store.retells().isEmpty)
            try store.commit(retells: waiting)
        }
        let store = try temp.open()
        #expect(try store.retells() == waiting, "every field back as it was")
        try store.commit(states: ["x1c": PrinterNotificationState()])
        #expect(try store.retells() == waiting, "a change that did not touch them leaves them")
        try store.commit(retells: [waiting[1]])
        #expect(try temp.open().retells() == [waiting[1]])
        try store.commit(retells: [])
        #expect(try temp.open().retells().isEmpty)
    }

    /// The API marks an alert opened at once; the agent rewrites its copy
    /// of the table when it has heard. Stopped in between, the store does
    /// not bring the opened alert's reminder back.
    @Test func aReminderOfAnAlertMarkedOpenedIsNotRestored() throws {
        let temp = TemporaryStore()
        let waiting = [retell(.failed, due: 1_795_166_101), retell(.printerError, due: 1_795_166_102, errorText: "AMS jam")]
        let id: String
        do {
            let store = try temp.open()
            id = try store.register(apnsToken: phone, haURL: nil, printerPrefix: nil, printerName: nil).deviceID
            try store.commit(retells: waiting)
        }
        let opened = try #require(waiting[0].push.apnsID)
        #expect(sqliteExecute(temp.directory + "/printbridge.sqlite3", """
            INSERT INTO notifications (device_id, printer_prefix, event, title, body, created_at, apns_id, opened_at)
            VALUES ('\(id)', 'x1c', 'failed', 'Print Failed', 'b', 1795165200, '\(opened)', 1795165300);
            """))
        #expect(try temp.open().retells() == [waiting[1]])
    }

    @Test func aSchema18StoreIsUpgradedWithNothingWaiting() throws {
        let temp = TemporaryStore()
        _ = try temp.open()
        #expect(sqliteExecute(temp.directory + "/printbridge.sqlite3", undoSchema19 + "PRAGMA user_version = 18;"))
        let store = try temp.open()
        #expect(store.schemaVersion == latestSchema && latestSchema == 19)
        #expect(try store.retells().isEmpty)
    }
}
