import DeviceStore
import FoundationEssentials
import PrintBridgeCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The store on a temporary directory, fresh per test.
struct TemporaryStore {
    let directory: String
    let clock = ManualClock(EpochTime(seconds: 1_795_165_200))

    init() {
        var template = Array("/tmp/printbridge-store-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    func open() throws -> DeviceStore { try DeviceStore(directory: directory, clock: clock) }
}

let phone = String(repeating: "ab", count: 32)
let tablet = String(repeating: "cd", count: 32)
let activity = String(repeating: "ef", count: 40)

@Suite struct DeviceStoreTests {
    @Test func anEmptyDirectoryIsMigratedToTheCurrentSchema() throws {
        let temp = TemporaryStore()
        let store = try temp.open()
        #expect(store.schemaVersion == 14)
        #expect(try store.devices().isEmpty)
        #expect(try store.notificationStates().isEmpty)
        // Reopening runs no migration twice.
        #expect(try temp.open().schemaVersion == 14)
    }

    @Test func registeringAgainUpdatesInsteadOfDuplicating() throws {
        let store = try TemporaryStore().open()
        let first = try store.register(apnsToken: phone, haURL: "http://ha:8123", printerPrefix: "x1c", printerName: "X1C")
        #expect(first.created)
        // The app re-registers with the printer its user picked: that one, with its name.
        let again = try store.register(apnsToken: phone.uppercased(), haURL: "http://ha.local:8123", printerPrefix: "p1s", printerName: "P1S")
        #expect(!again.created && again.deviceID == first.deviceID)
        var devices = try store.devices()
        #expect(devices.count == 1)
        #expect(devices[0].apnsToken == phone)
        #expect(devices[0].printerPrefixes == ["p1s"], "the new printer replaces the old")
        #expect(devices[0].printerName == "P1S")
        // Re-registering without a printer (a token refresh) changes neither.
        _ = try store.register(apnsToken: phone, haURL: nil, printerPrefix: nil, printerName: nil)
        devices = try store.devices()
        #expect(devices[0].printerPrefixes == ["p1s"] && devices[0].printerName == "P1S")
        // The explicit extension follows several.
        _ = try store.register(apnsToken: phone, haURL: nil, printerPrefix: nil, printerName: nil, printerPrefixes: ["x1c", "p1s"])
        devices = try store.devices()
        #expect(devices[0].printerPrefixes == ["x1c", "p1s"], "a device may follow several printers, when asked")
        #expect(devices[0].printerName == nil)
        _ = try store.register(apnsToken: tablet, haURL: nil, printerPrefix: nil, printerName: nil)
        #expect(try store.devices().last?.printerPrefixes.isEmpty == true, "none given: every printer")
    }

    @Test func preferencesPatchOnlyWhatIsGiven() throws {
        let store = try TemporaryStore().open()
        let id = try store.register(apnsToken: phone, haURL: nil, printerPrefix: nil, printerName: nil).deviceID
        #expect(try store.updatePreferences(deviceID: id, .init(onStart: false, onMilestone: false)))
        #expect(try store.devices()[0].preferences == NotificationPreferences(onStart: false, onMilestone: false))
        #expect(try store.updatePreferences(deviceID: id, .init(onStart: true)))
        #expect(try store.devices()[0].preferences == NotificationPreferences(onMilestone: false))
        #expect(try !store.updatePreferences(deviceID: "no-such-device", .init(onStart: true)))
        #expect(try store.updatePreferences(deviceID: id, .init(onPrinterError: false, onBedCooled: false)))
        #expect(try store.devices()[0].preferences
            == NotificationPreferences(onMilestone: false, onPrinterError: false, onBedCooled: false))
        #expect(try store.updatePreferences(deviceID: id, .init(backgroundRefresh: false)))
        #expect(try store.devices()[0].preferences
            == NotificationPreferences(
                onMilestone: false, onPrinterError: false, onBedCooled: false, backgroundRefresh: false))
    }

    @Test func aPhonesLanguageIsKeptUntilItSaysAnother() throws {
        let store = try TemporaryStore().open()
        let id = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: nil, language: "de-AT").deviceID
        #expect(try store.devices()[0].language == "de-AT")
        _ = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: nil)
        #expect(try store.devices()[0].language == "de-AT", "the seed app's re-registration says no language")
        _ = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: nil, language: "fr")
        #expect(try store.devices().map(\.language) == ["fr"])
        #expect(try store.devices()[0].id == id)
    }

    @Test func liveActivityAndPushToStartTokensPerDevice() throws {
        let store = try TemporaryStore().open()
        let a = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: nil).deviceID
        let b = try store.register(apnsToken: tablet, haURL: nil, printerPrefix: "x1c", printerName: nil).deviceID
        #expect(try store.setActivityToken(activity, printerPrefix: "x1c", deviceID: a))
        #expect(try store.setActivityToken(activity + "00", printerPrefix: "x1c", deviceID: b))
        #expect(try store.setPushToStartToken(activity + "11", deviceID: a))
        #expect(try !store.setActivityToken(activity, printerPrefix: "x1c", deviceID: "nobody"))
        var devices = try store.devices()
        #expect(devices.map { $0.activityTokens["x1c"] } == [activity, activity + "00"], "two phones, two tokens")
        #expect(devices[0].pushToStartToken == activity + "11")
        try store.commit(endedActivities: [PushPlanner.ActivityEnd(deviceID: a, prefix: "x1c", token: activity)])
        devices = try store.devices()
        #expect(devices[0].activityTokens.isEmpty && devices[1].activityTokens["x1c"] == activity + "00")
    }

    /// The app sends `{activityToken, printerPrefix}` and no device id: each
    /// token is its own activity, kept once, never pinned on a phone by guess.
    @Test func activityTokensWithoutADeviceAreActivitiesOfTheirOwn() throws {
        let temp = TemporaryStore()
        let store = try temp.open()
        let a = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: nil).deviceID
        _ = try store.register(apnsToken: tablet, haURL: nil, printerPrefix: "x1c", printerName: nil)
        #expect(try store.setActivityToken(activity, printerPrefix: "x1c", deviceID: nil))
        #expect(try store.setActivityToken(activity + "00", printerPrefix: "x1c", deviceID: nil))
        #expect(try store.setActivityToken(activity + "00", printerPrefix: "x1c", deviceID: nil), "the same token again: still one")
        #expect(try store.devices().allSatisfy { $0.activityTokens.isEmpty }, "no phone is guessed")
        var all = try store.devicesAndActivities()
        #expect(all.count == 4)
        let activities = all.filter { !$0.receivesAlerts }
        #expect(activities.map { $0.activityTokens["x1c"] } == [activity, activity + "00"])
        #expect(activities.allSatisfy { !$0.follows("x1c") }, "an activity gets no alerts")
        // With the extension's device id it is that phone's, replacing its previous one.
        #expect(try store.setActivityToken(activity + "11", printerPrefix: "x1c", deviceID: a))
        #expect(try store.setActivityToken(activity + "22", printerPrefix: "x1c", deviceID: a))
        #expect(try store.devices()[0].activityTokens == ["x1c": activity + "22"])
        // Ended, or past iOS's 8 hours (plus an hour): gone.
        try store.commit(endedActivities: [PushPlanner.ActivityEnd(deviceID: "activity-x", prefix: "x1c", token: activity)])
        all = try store.devicesAndActivities()
        #expect(all.filter { !$0.receivesAlerts }.map { $0.activityTokens["x1c"] } == [activity + "00"])
        temp.clock.set(temp.clock.now() + DeviceStore.activityLifetime + 1)
        #expect(try store.devicesAndActivities().allSatisfy { $0.activityTokens.isEmpty })
    }

    @Test func apnsVerdictsOnTokensArePermanent() throws {
        let store = try TemporaryStore().open()
        let a = try store.register(apnsToken: phone, haURL: nil, printerPrefix: nil, printerName: nil).deviceID
        _ = try store.register(apnsToken: tablet, haURL: nil, printerPrefix: nil, printerName: nil)
        _ = try store.setActivityToken(activity, printerPrefix: "x1c", deviceID: a)
        try store.applyTokenRejection(token: activity, action: .remove)
        #expect(try store.devices()[0].activityTokens.isEmpty)
        try store.applyTokenRejection(token: tablet, action: .disable)
        #expect(try store.devices()[1].isDisabled)
        try store.applyTokenRejection(token: phone, action: .remove)
        #expect(try store.devices().map(\.apnsToken) == [tablet])
        // Registering a disabled token again enables it.
        _ = try store.register(apnsToken: tablet, haURL: nil, printerPrefix: nil, printerName: nil)
        #expect(try store.devices()[0].isDisabled == false)
    }

    @Test func removingADeviceTakesItsTokensWithIt() throws {
        let store = try TemporaryStore().open()
        let a = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: nil).deviceID
        _ = try store.setActivityToken(activity, printerPrefix: "x1c", deviceID: a)
        #expect(try store.removeDevice(id: a))
        #expect(try !store.removeDevice(id: a))
        #expect(try store.devices().isEmpty)
    }

    @Test func watchingSinceIsSetOnceAndKept() throws {
        let temp = TemporaryStore()
        let first = try temp.open().watchingSince()
        #expect(first == temp.clock.now())
        temp.clock.set(temp.clock.now() + 3600)
        #expect(try temp.open().watchingSince() == first, "a later start keeps the first")
    }

    @Test func notificationStateSurvivesAReopen() throws {
        let temp = TemporaryStore()
        var states: [String: PrinterNotificationState] = [
            "x1c": PrinterNotificationState(
                lastStatus: .running, printID: "x1c-1795165200", milestonesSent: [25, 50], milestoneReference: 52.5,
                lastLiveActivityPush: EpochTime(seconds: 1_795_165_260), liveActivityDue: EpochTime(seconds: 1_795_165_290)),
            "p1s": PrinterNotificationState(lastStatus: .complete),
            // A status seen just before a crash, not yet acted on: a start settling.
            "a1": PrinterNotificationState(
                lastStatus: .idle, heldStatus: .running, heldDue: EpochTime(seconds: 1_795_165_205), heldFile: "cube.3mf"),
        ]
        // Printer errors told, one cleared a moment ago, new ones waiting; a bed cooling after a finish.
        states["p1s"]?.toldErrors = ["0300_0100_0001_0007", "0700_2000_0002_0001"]
        states["p1s"]?.clearedErrors = ["0701_2200_0002_0002": EpochTime(seconds: 1_795_165_100.25)]
        states["p1s"]?.errorsDue = EpochTime(seconds: 1_795_165_103)
        states["p1s"]?.bedCoolingSince = EpochTime(seconds: 1_795_165_000)
        states["a1"]?.toldErrors = []
        // A failure announced, a pause told to two phones, a printer gone
        // quiet (told to one phone) and another quiet one not yet told.
        states["x1c"]?.failureAnnounced = EpochTime(seconds: 1_795_165_270.5)
        states["x1c"]?.pauseToldTo = ["0f8e4a1c-2b3d-4e5f-8a9b-0c1d2e3f4a5b", "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d"]
        states["x1c"]?.silence = .init(
            since: EpochTime(seconds: 1_795_165_280), due: nil, toldTo: ["0f8e4a1c-2b3d-4e5f-8a9b-0c1d2e3f4a5b"])
        states["p1s"]?.silence = .init(since: EpochTime(seconds: 1_795_165_290), due: EpochTime(seconds: 1_795_165_350))
        try temp.open().commit(states: states)
        #expect(try temp.open().notificationStates() == states)
        var changed = states
        changed["x1c"]?.lastStatus = .paused
        try temp.open().commit(states: changed)
        #expect(try temp.open().notificationStates() == changed)
    }

    /// A store written by the previous release (schema 6) opens with its
    /// printers' memory kept; what it did not know starts empty.
    @Test func aSchema6StoreIsUpgradedInPlace() throws {
        let temp = TemporaryStore()
        let states = ["x1c": PrinterNotificationState(lastStatus: .paused, printID: "x1c-1795165200", milestonesSent: [25])]
        try temp.open().commit(states: states)
        let path = temp.directory + "/printbridge.sqlite3"
        #expect(sqliteExecute(path, """
            ALTER TABLE printer_state DROP COLUMN failure_announced;
            ALTER TABLE printer_state DROP COLUMN pause_told_to;
            ALTER TABLE printer_state DROP COLUMN silent_since;
            ALTER TABLE printer_state DROP COLUMN offline_due;
            ALTER TABLE printer_state DROP COLUMN offline_told_to;
            DROP TABLE notifications;
            ALTER TABLE devices DROP COLUMN background_refresh;
            ALTER TABLE devices DROP COLUMN snapshots;
            DROP TABLE phone_credentials;
            DROP TABLE pairing_codes;
            \(undoSchema14)\(undoSchema13)PRAGMA user_version = 6;
            """))
        let store = try temp.open()
        #expect(store.schemaVersion == 14)
        #expect(try store.notificationStates() == states)
    }

    /// A store written before the notification history (schema 7) opens
    /// with its phones, printers' memory and outbox kept, and an empty
    /// history that records from then on.
    @Test func aSchema7StoreIsUpgradedInPlace() throws {
        let temp = TemporaryStore()
        let states = ["x1c": PrinterNotificationState(lastStatus: .running, printID: "x1c-1795165200", milestonesSent: [25])]
        let device: String
        do {
            let store = try temp.open()
            device = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: "X1C").deviceID
            try store.commit(states: states)
        }
        let path = temp.directory + "/printbridge.sqlite3"
        #expect(sqliteExecute(path, """
            DROP INDEX notifications_by_device;
            DROP TABLE notifications;
            ALTER TABLE devices DROP COLUMN background_refresh;
            ALTER TABLE devices DROP COLUMN snapshots;
            DROP TABLE phone_credentials;
            DROP TABLE pairing_codes;
            \(undoSchema14)\(undoSchema13)PRAGMA user_version = 7;
            """))
        let store = try temp.open()
        #expect(store.schemaVersion == 14)
        #expect(try store.notificationStates() == states)
        #expect(try store.devices().map(\.id) == [device])
        #expect(try store.notifications(device: device, limit: 50).notifications.isEmpty)
        let sent = SentNotification(
            deviceID: device, printer: "x1c", event: .milestone, title: "50% Complete", body: "benchy.3mf on X1C",
            createdAt: EpochTime(seconds: 1_795_165_300), apnsID: "m-50")
        try store.commit(notifications: [sent])
        #expect(try store.notifications(device: device, limit: 50).notifications.map(\.title) == ["50% Complete"])
    }

    /// A store written before the background push's switch (schema 8)
    /// opens with its phones, their switches and history kept, and the new
    /// switch on for every phone.
    @Test func aSchema8StoreIsUpgradedWithBackgroundRefreshOn() throws {
        let temp = TemporaryStore()
        let device: String
        let sent: SentNotification
        do {
            let store = try temp.open()
            device = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: "X1C").deviceID
            #expect(try store.updatePreferences(deviceID: device, .init(onMilestone: false)))
            sent = SentNotification(
                deviceID: device, printer: "x1c", event: .complete, title: "Print Complete! 🎉", body: "benchy.3mf on X1C",
                createdAt: EpochTime(seconds: 1_795_165_300), apnsID: "c-1")
            try store.commit(notifications: [sent])
        }
        let path = temp.directory + "/printbridge.sqlite3"
        #expect(sqliteExecute(path, """
            ALTER TABLE devices DROP COLUMN background_refresh;
            ALTER TABLE devices DROP COLUMN snapshots;
            DROP TABLE phone_credentials;
            DROP TABLE pairing_codes;
            \(undoSchema14)\(undoSchema13)PRAGMA user_version = 8;
            """))
        let store = try temp.open()
        #expect(store.schemaVersion == 14)
        #expect(try store.devices().map(\.id) == [device])
        #expect(try store.devices()[0].preferences == NotificationPreferences(onMilestone: false, backgroundRefresh: true))
        #expect(try store.notifications(device: device, limit: 50).notifications.map(\.title) == [sent.title])
        #expect(try store.updatePreferences(deviceID: device, .init(backgroundRefresh: false)))
        #expect(try temp.open().devices()[0].preferences == NotificationPreferences(onMilestone: false, backgroundRefresh: false))
    }

    /// A store written before the pictures' switch (schema 9) opens with
    /// its phones and their switches kept, pictures on for every phone, and
    /// its key for the pictures' links made once and kept.
    @Test func aSchema9StoreIsUpgradedWithPicturesOn() throws {
        let temp = TemporaryStore()
        let device: String
        do {
            let store = try temp.open()
            device = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: "X1C").deviceID
            #expect(try store.updatePreferences(deviceID: device, .init(backgroundRefresh: false)))
        }
        let path = temp.directory + "/printbridge.sqlite3"
        #expect(sqliteExecute(path, """
            ALTER TABLE devices DROP COLUMN snapshots;
            DROP TABLE phone_credentials;
            DROP TABLE pairing_codes;
            \(undoSchema14)\(undoSchema13)PRAGMA user_version = 9;
            """))
        let store = try temp.open()
        #expect(store.schemaVersion == 14)
        #expect(try store.devices()[0].preferences == NotificationPreferences(backgroundRefresh: false, snapshots: true))
        #expect(try store.updatePreferences(deviceID: device, .init(snapshots: false)))
        #expect(try temp.open().devices()[0].preferences == NotificationPreferences(backgroundRefresh: false, snapshots: false))
        let key = try #require(try store.snapshotKey { Array(repeating: 7, count: 32) })
        #expect(key == Array(repeating: 7, count: 32))
        #expect(try temp.open().snapshotKey { Array(repeating: 9, count: 32) } == key, "made once, kept across restarts")
    }

    @Test func oneConnectionSavesAgainAndAgainWithItsReusedStatements() throws {
        let temp = TemporaryStore()
        let store = try temp.open()
        var state = PrinterNotificationState()
        for step in 0..<200 {
            state.lastStatus = step.isMultiple(of: 2) ? .running : .paused
            state.milestonesSent = step.isMultiple(of: 3) ? [] : [25, 50]
            state.milestoneReference = step.isMultiple(of: 5) ? nil : Double(step)
            state.liveActivityDue = step.isMultiple(of: 7) ? EpochTime(seconds: Double(step)) : nil
            try store.commit(states: ["x1c": state, "p\(step % 3)": state])
            // Another connection (as after a crash) sees each commit at once,
            // without waiting for the background sync.
            #expect(try temp.open().notificationStates()["x1c"] == state)
        }
        #expect(try store.notificationStates().count == 4)
    }

    @Test func devicesSurviveAReopenInWALMode() throws {
        let temp = TemporaryStore()
        do {
            let store = try temp.open()
            _ = try store.register(apnsToken: phone, haURL: "http://ha:8123", printerPrefix: "x1c", printerName: "X1C")
        }
        let reopened = try temp.open()
        #expect(try reopened.devices().map(\.apnsToken) == [phone])
        #expect(access(temp.directory + "/printbridge.sqlite3-wal", F_OK) == 0 || access(temp.directory + "/printbridge.sqlite3", F_OK) == 0)
    }

    @Test func anUnwritableDirectoryIsAClearError() {
        #expect {
            _ = try DeviceStore(directory: "/nonexistent/printbridge")
        } throws: { error in
            "\(error)".contains("the state directory /nonexistent/printbridge is not writable")
                && "\(error)".contains("STATE_DIR")
        }
    }

    @Test func aStoreFromANewerPrintBridgeIsRefused() throws {
        let temp = TemporaryStore()
        _ = try temp.open()
        let path = temp.directory + "/printbridge.sqlite3"
        #expect(sqliteSetUserVersion(path, 99))
        #expect {
            _ = try temp.open()
        } throws: { error in
            "\(error)".contains("schema version 99, newer than this PrintBridge knows")
        }
    }
}

extension DeviceStoreTests {
    /// Schema 11: a store that had phones before the API spoke HTTPS
    /// remembers it (they keep plain HTTP until they pair again); a new one does not.
    @Test func aStoreWithPhonesBeforeHTTPSRemembersIt() throws {
        let fresh = TemporaryStore()
        let store = try fresh.open()
        _ = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: "X1C")
        #expect(try store.hadPlainHTTPPhones() == false, "phones paired after the upgrade pair over HTTPS")

        let upgraded = TemporaryStore()
        do {
            let store = try upgraded.open()
            _ = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: "X1C")
        }
        #expect(sqliteExecute(upgraded.directory + "/printbridge.sqlite3", """
            DELETE FROM store_meta WHERE key = 'plain_http_phones';
            DROP TABLE phone_credentials;
            DROP TABLE pairing_codes;
            \(undoSchema14)\(undoSchema13)PRAGMA user_version = 10;
            """))
        #expect(try upgraded.open().hadPlainHTTPPhones())

        let empty = TemporaryStore()
        _ = try empty.open()
        #expect(sqliteExecute(empty.directory + "/printbridge.sqlite3", "DROP TABLE phone_credentials; DROP TABLE pairing_codes; \(undoSchema14)\(undoSchema13)PRAGMA user_version = 10;"))
        #expect(try empty.open().hadPlainHTTPPhones() == false, "no phones, nothing to keep working")
    }
}

extension DeviceStoreTests {
    /// A pairing code works once and only for its minutes; a credential is
    /// bound to the device that registers with it and revoked on its own.
    @Test func aPairingCodeIsTradedOnceWithinItsTimeAndACredentialRevokedAlone() throws {
        let temp = TemporaryStore()
        let store = try temp.open()
        let start = temp.clock.now()
        try store.addPairingCode(hash: "code-a", expires: start + 600)
        try store.addPairingCode(hash: "code-b", expires: start + 600)
        #expect(try store.redeemPairingCode(hash: "code-a", credentialID: "c1", credentialHash: "h1", name: "Sam's iPhone"))
        #expect(try !store.redeemPairingCode(hash: "code-a", credentialID: "c2", credentialHash: "h2", name: nil), "once")
        #expect(try !store.redeemPairingCode(hash: "no-such-code", credentialID: "c3", credentialHash: "h3", name: nil))
        temp.clock.advance(by: 601)
        #expect(try !store.redeemPairingCode(hash: "code-b", credentialID: "c4", credentialHash: "h4", name: nil), "expired")
        #expect(try store.phoneCredentials().map(\.id) == ["c1"])

        let phoneID = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: nil).deviceID
        let tabletID = try store.register(apnsToken: tablet, haURL: nil, printerPrefix: "x1c", printerName: nil).deviceID
        try store.addPairingCode(hash: "code-c", expires: temp.clock.now() + 600)
        #expect(try store.redeemPairingCode(hash: "code-c", credentialID: "c5", credentialHash: "h5", name: nil))
        try store.bindCredential(id: "c1", deviceID: phoneID)
        try store.bindCredential(id: "c5", deviceID: tabletID)
        #expect(try store.phoneCredential(hash: "h1")?.deviceID == phoneID)
        #expect(try store.phoneCredential(hash: "h1")?.name == "Sam's iPhone")
        #expect(try store.revokeCredentials(of: phoneID) == 1)
        #expect(try store.phoneCredential(hash: "h1")?.revokedAt != nil)
        #expect(try store.phoneCredential(hash: "h5")?.revokedAt == nil, "the other phone's stands")
        #expect(try store.revokeCredentials(of: phoneID) == 0, "nothing live left to revoke")
        #expect(try store.revokeCredentials(of: "c5") == 1, "by the credential's own id too")
        // A device forgotten leaves its credential unbound (and it stays revoked or not as it was).
        #expect(try store.removeDevice(id: phoneID))
        #expect(try store.phoneCredential(hash: "h1")?.deviceID == nil)
    }
}
