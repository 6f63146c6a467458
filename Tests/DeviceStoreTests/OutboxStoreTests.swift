import DeviceStore
import PrintBridgeCore
import Testing

/// The outbox on disk: a change's pushes are saved with the printer memory
/// that made them and come back, whole and in order, after a restart.
@Suite struct OutboxStoreTests {
    func push(_ event: Push.Event, token: String = phone, kind: Push.Kind = .alert) -> Push {
        var push = Push(
            kind: kind, event: event, printerPrefix: "x1c", deviceID: "d1", token: token,
            tokenKind: kind == .alert ? .device : .activity, topic: "com.example.app", priority: 10,
            collapseID: kind == .alert ? nil : "x1c-la", expiration: EpochTime(seconds: 1_795_251_600),
            payload: Array(#"{"aps":{"alert":{"title":"Print Complete! 🎉"}}}"#.utf8),
            createdAt: EpochTime(seconds: 1_795_165_200.25))
        push.apnsID = "8a1b2c3d-0000-8000-8000-000000000001"
        return push
    }

    @Test func pushesAndTheMemoryThatMadeThemAreOneTransactionAndSurviveARestart() throws {
        let temp = TemporaryStore()
        let entries = [
            Outbox.Entry(sequence: 7, push: push(.complete)),
            Outbox.Entry(sequence: 8, push: push(.end, token: activity, kind: .liveActivity)),
        ]
        var state = PrinterNotificationState()
        state.lastStatus = .complete
        do {
            let store = try temp.open()
            _ = try store.setActivityToken(activity, printerPrefix: "x1c", deviceID: nil)
            try store.commit(
                states: ["x1c": state],
                endedActivities: [PushPlanner.ActivityEnd(deviceID: "activity-x", prefix: "x1c", token: activity)],
                enqueue: entries)
        }
        let store = try temp.open()
        #expect(try store.outbox() == entries, "every field back as it was")
        #expect(try store.notificationStates()["x1c"]?.lastStatus == .complete)
        #expect(try store.devicesAndActivities().isEmpty, "the ended activity's token went with it")
        #expect(try store.outbox().map(\.sequence).max() == 8)
        try store.commit(settled: [7])
        #expect(try store.outbox().map(\.sequence) == [8])
        try store.commit(settled: [8])
        #expect(try store.outbox().isEmpty)
        #expect(try store.outbox().map(\.sequence).max() == nil, "new entries start again from 1")
    }
}
