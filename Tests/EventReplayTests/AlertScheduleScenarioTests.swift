import EventReplay
import PrintBridgeCore
import Testing

/// Issue 53's alerts replayed from real recordings on replay's virtual
/// clock: a night with quiet hours, and the first layer of a real X1C print.
@Suite struct AlertScheduleScenarioTests {
    let token = String(repeating: "ab", count: 32)

    /// bambu-full-print.jsonl: ha-bambulab's `current_layer` goes 0, 1, 2, …
    @Test func theFirstLayerOfARecordedBambuPrint() throws {
        let phone = Device(id: "p", apnsToken: token, preferences: .init(onFirstLayer: true))
        let pushes = replay([Repo.sampleEvents + "/bambu-full-print.jsonl"], devices: [phone]).pushes
        let alerts = pushes.filter { $0.kind == .alert }
        #expect(alerts.map(\.event) == [.started, .firstLayer, .milestone, .milestone, .milestone, .complete])
        #expect(replay([Repo.sampleEvents + "/bambu-full-print.jsonl"], devices: [Device(id: "p", apnsToken: token)])
            .pushes.filter { $0.event == .firstLayer }.isEmpty, "off by default")
    }

    /// The same print with the whole day quiet: one summary at the end of
    /// replay, Live Activity updates as before.
    @Test func aQuietNightOfARecordedPrint() throws {
        var phone = Device(id: "p", apnsToken: token, activityTokens: ["x1c_00m09a350100123": String(repeating: "cd", count: 40)])
        phone.preferences.schedule.quietHours = QuietHours(start: 0, end: 23 * 60 + 59, timeZone: "UTC")
        let loud = replay([Repo.sampleEvents + "/bambu-full-print.jsonl"]).pushes
        let pushes = replay([Repo.sampleEvents + "/bambu-full-print.jsonl"], devices: [phone]).pushes
        #expect(pushes.filter { $0.kind == .alert }.map(\.event) == [.summary])
        #expect(pushes.filter { $0.kind == .liveActivity }.count == loud.filter { $0.kind == .liveActivity }.count)
    }
}
