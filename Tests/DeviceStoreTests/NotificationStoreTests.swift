import DeviceStore
import PrintBridgeCore
import Testing

/// The alerts sent to each phone, as the app's history reads them back:
/// recorded with the change that made them, their outcome written when the
/// outbox settles them, newest first in pages, kept for a set time.
@Suite struct NotificationStoreTests {
    /// An alert push as the planner makes it (the real payload), in German.
    func alert(
        _ event: Push.Event, device: String, printer: String = "x1c", at seconds: Double, id: String,
        reason: String? = nil
    ) throws -> Push {
        let payload = AlertPayload(
            event: event, prefix: printer, printerName: "X1C", fileName: "benchy.3mf",
            status: event == .failed ? .failed : .running, progress: 42, milestone: event == .milestone ? 25 : nil,
            detail: reason.map(AlertPayload.Detail.reason) ?? .none, catalog: try #require(Catalog.forLanguage("de")))
        var push = Push(
            kind: .alert, event: event, printerPrefix: printer, deviceID: device, token: phone, tokenKind: .device,
            topic: "com.example.app", priority: 10, collapseID: nil, expiration: EpochTime(seconds: seconds + 86400),
            payload: try payload.encoded(), createdAt: EpochTime(seconds: seconds))
        push.apnsID = id
        return push
    }

    func sent(_ push: Push) throws -> SentNotification { try #require(SentNotification(sent: push)) }

    @Test func anAlertIsRecordedAsThePhoneReadItAndItsOutcomeWrittenWhenSettled() throws {
        let temp = TemporaryStore()
        let store = try temp.open()
        let device = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: "X1C").deviceID
        let push = try alert(.failed, device: device, at: 1_795_165_200.5, id: "a-1", reason: "print error 0700-8006")
        var state = PrinterNotificationState()
        state.lastStatus = .failed
        try store.commit(states: ["x1c": state], enqueue: [Outbox.Entry(sequence: 1, push: push)], notifications: [sent(push)])
        let page = try store.notifications(device: device, limit: 50)
        let recorded = try #require(page.notifications.first)
        #expect(page.notifications.count == 1 && page.next == nil)
        #expect(recorded.title == "Druck fehlgeschlagen ⚠️", "in the phone's language, as sent")
        #expect(recorded.body.hasPrefix("benchy.3mf ist auf X1C fehlgeschlagen"))
        #expect(recorded.reason == "print error 0700-8006")
        #expect(recorded.event == .failed && recorded.printer == "x1c" && recorded.outcome == .pending)
        #expect(recorded.createdAt == EpochTime(seconds: 1_795_165_200.5))
        #expect(recorded.id > 0 && recorded.snapshot == nil)

        // APNs answered: the outbox row goes, the outcome is written, in one commit.
        try store.commit(settled: [1], outcomes: [.init(apnsID: "a-1", outcome: .delivered)])
        #expect(try store.outbox().isEmpty)
        #expect(try store.notifications(device: device, limit: 50).notifications.map(\.outcome) == [.delivered])
        // Back after a restart.
        #expect(try temp.open().notifications(device: device, limit: 50).notifications.first?.title == recorded.title)
    }

    @Test func onlyAlertsToAPhonesDeviceTokenAreNotifications() throws {
        var push = try alert(.complete, device: "d1", at: 1_795_165_200, id: "a-1")
        #expect(SentNotification(sent: push) != nil)
        push.kind = .liveActivity
        #expect(SentNotification(sent: push) == nil, "a Live Activity push")
        push.kind = .alert
        push.tokenKind = .pushToStart
        #expect(SentNotification(sent: push) == nil)
        push.tokenKind = .device
        push.apnsID = nil
        #expect(SentNotification(sent: push) == nil, "no apns-id: its answer could not find it")
    }

    @Test func pagesAreNewestFirstAndTheCursorNeverRepeatsOrSkipsOne() throws {
        let temp = TemporaryStore()
        let store = try temp.open()
        let device = try store.register(apnsToken: phone, haURL: nil, printerPrefix: nil, printerName: nil).deviceID
        let other = try store.register(apnsToken: tablet, haURL: nil, printerPrefix: nil, printerName: nil).deviceID
        // Seven alerts, two of them made in the same second, on two printers.
        let times: [Double] = [100, 200, 300, 300, 400, 500, 600]
        let pushes = try times.enumerated().map { index, time in
            try alert(.milestone, device: device, printer: index.isMultiple(of: 2) ? "x1c" : "p1s",
                      at: 1_795_165_000 + time, id: "a-\(index)")
        }
        try store.commit(notifications: try pushes.map(sent))
        try store.commit(notifications: [sent(alert(.complete, device: other, at: 1_795_165_900, id: "b-1"))])

        // Every page size: a page may end between the two of the same second.
        for limit in 1...4 {
            var seen: [String] = []
            var cursor: DeviceStore.PageCursor?
            repeat {
                let page = try store.notifications(device: device, before: cursor, limit: limit)
                #expect(page.notifications.count <= limit)
                seen += page.notifications.map(\.apnsID)
                // The cursor goes to the app as text and comes back.
                cursor = try page.next.map { try #require(DeviceStore.PageCursor($0.description)) }
            } while cursor != nil
            #expect(seen == ["a-6", "a-5", "a-4", "a-3", "a-2", "a-1", "a-0"], "every one once, newest first, the phone's own")
        }

        let x1c = try store.notifications(device: device, printer: "x1c", limit: 50).notifications.map(\.apnsID)
        #expect(x1c == ["a-6", "a-4", "a-2", "a-0"])
        // A time: strictly older than it.
        let older = try store.notifications(
            device: device, before: .init(time: EpochTime(seconds: 1_795_165_300)), limit: 50)
        #expect(older.notifications.map(\.apnsID) == ["a-1", "a-0"] && older.next == nil)
        #expect(try store.notifications(device: "nobody", limit: 50).notifications.isEmpty)
    }

    @Test func aCursorThatIsNotOneIsRefused() {
        for text in ["", "12", "_", "0_41da", "-3_41da", "12_zz", "12_7ff0000000000000", "12_41da_1", "x_41da"] {
            #expect(DeviceStore.PageCursor(text) == nil, "\(text)")
        }
        let cursor = DeviceStore.PageCursor(time: EpochTime(seconds: 1_795_165_200.123456), id: 42)
        #expect(DeviceStore.PageCursor(cursor.description) == cursor)
    }

    @Test func anAlertToAPhoneGoneMeanwhileNeverFailsItsChangeAndAPhoneForgottenTakesItsHistory() throws {
        let temp = TemporaryStore()
        let store = try temp.open()
        let device = try store.register(apnsToken: phone, haURL: nil, printerPrefix: nil, printerName: nil).deviceID
        var state = PrinterNotificationState()
        state.lastStatus = .running
        let gone = try alert(.started, device: "removed-meanwhile", at: 1_795_165_200, id: "g-1")
        let kept = try alert(.started, device: device, at: 1_795_165_200, id: "k-1")
        try store.commit(
            states: ["x1c": state], enqueue: [Outbox.Entry(sequence: 1, push: gone)], notifications: [sent(gone), sent(kept)])
        #expect(try store.notificationStates()["x1c"]?.lastStatus == .running, "the change is saved")
        #expect(try store.outbox().count == 1)
        #expect(try store.notifications(device: device, limit: 50).notifications.map(\.apnsID) == ["k-1"])
        // The same push made again after a crash (its apns-id): one row, its outcome kept.
        try store.commit(outcomes: [.init(apnsID: "k-1", outcome: .delivered)])
        try store.commit(notifications: [sent(kept)])
        #expect(try store.notifications(device: device, limit: 50).notifications.map(\.outcome) == [.delivered])

        #expect(try store.removeDevice(id: device))
        _ = try store.register(apnsToken: phone, haURL: nil, printerPrefix: nil, printerName: nil)
        #expect(try store.notifications(device: device, limit: 50).notifications.isEmpty)
    }

    @Test func whatIsOlderThanItsRetentionIsForgotten() throws {
        let temp = TemporaryStore()
        let store = try temp.open()
        let device = try store.register(apnsToken: phone, haURL: nil, printerPrefix: nil, printerName: nil).deviceID
        let day = 86400.0
        let now = temp.clock.now().seconds
        try store.commit(notifications: [
            sent(alert(.complete, device: device, at: now - 40 * day, id: "old")),
            sent(alert(.complete, device: device, at: now - 10 * day, id: "recent")),
        ])
        // Recording the next alert forgets what is past the retention.
        try store.commit(notifications: [sent(alert(.started, device: device, at: now, id: "new"))], keepNotifications: 30 * day)
        #expect(try store.notifications(device: device, limit: 50).notifications.map(\.apnsID) == ["new", "recent"])
        // At start-up, with nothing new.
        temp.clock.advance(by: 25 * day)
        #expect(try store.pruneNotifications(keeping: 30 * day) == 1)
        #expect(try store.notifications(device: device, limit: 50).notifications.map(\.apnsID) == ["new"])
        // 0: none is kept.
        #expect(try store.pruneNotifications(keeping: 0) == 1)
        #expect(try store.notifications(device: device, limit: 50).notifications.isEmpty)
    }
}
