import DeviceStore
import PrintBridgeCore
import Testing

/// Each phone's alert schedule (issue 53) in the store: kept, patched part
/// by part, cleared, and a schema-14 store upgraded with none set.
@Suite struct ScheduleStoreTests {
    @Test func aScheduleIsKeptPartByPart() throws {
        let temp = TemporaryStore()
        let store = try temp.open()
        let id = try store.register(apnsToken: phone, haURL: nil, printerPrefix: nil, printerName: nil).deviceID
        #expect(try store.devices()[0].preferences.schedule == AlertSchedule())
        let quiet = QuietHours(start: 1350, end: 420, timeZone: "Europe/Berlin", breakthrough: false)
        var patch = DeviceStore.PreferencesPatch(onStart: false)
        patch.schedule = .init(quietHours: .some(quiet), milestones: .some([25, 50]), minutesLeft: .some(10))
        #expect(try store.updatePreferences(deviceID: id, patch))
        let expected = AlertSchedule(quietHours: quiet, milestones: [25, 50], minutesLeft: 10, retellAfterMinutes: 15)
        #expect(try temp.open().devices()[0].preferences == NotificationPreferences(onStart: false, schedule: expected))
        patch = .init()
        patch.schedule = .init(milestones: .some(nil), retellAfterMinutes: 0)
        #expect(try store.updatePreferences(deviceID: id, patch))
        let schedule = try temp.open().devices()[0].preferences.schedule
        #expect(schedule == AlertSchedule(quietHours: quiet, minutesLeft: 10, retellAfterMinutes: 0))
        patch.schedule = .init(quietHours: .some(nil), minutesLeft: .some(nil))
        #expect(try store.updatePreferences(deviceID: id, patch))
        #expect(try store.devices()[0].preferences.schedule == AlertSchedule(retellAfterMinutes: 0))
    }

    @Test func aSchema14StoreIsUpgradedWithNoScheduleSet() throws {
        let temp = TemporaryStore()
        do {
            let store = try temp.open()
            let id = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: "X1C").deviceID
            #expect(try store.updatePreferences(deviceID: id, .init(onMilestone: false)))
        }
        #expect(sqliteExecute(temp.directory + "/printbridge.sqlite3", undoSchema15 + "PRAGMA user_version = 14;"))
        let store = try temp.open()
        #expect(store.schemaVersion == latestSchema)
        #expect(try store.devices()[0].preferences == NotificationPreferences(onMilestone: false))
    }
}
