import Testing
@testable import PrintBridgeCore

/// Live Activity broadcast channels (iOS 18, issue 52): one broadcast an
/// update for the phones on a printer's channel, per-token pushes for the
/// others, never both to one phone; `relevance-score` on every activity
/// push; a pause's alert inside the activity's update, and then the
/// ordinary alert quietly.
@Suite struct BroadcastChannelTests {
    static let channel = "Y2hhbm5lbC14MWMtMDAwMQ=="
    let ios17 = String(repeating: "a1", count: 40)

    func phones(pausedOffFor: Set<String> = []) -> [Device] {
        var older = device("ios17", printers: [HA.x1c], activity: [HA.x1c: ios17])
        older.apnsToken = String(repeating: "17", count: 32)
        var first = device("ios18a", printers: [HA.x1c])
        first.apnsToken = String(repeating: "8a", count: 32)
        first.channelPrinters = [HA.x1c]
        var second = device("ios18b", printers: [HA.x1c])
        second.apnsToken = String(repeating: "8b", count: 32)
        second.channelPrinters = [HA.x1c]
        var list = [older, first, second]
        for index in list.indices where pausedOffFor.contains(list[index].id) { list[index].preferences.onPaused = false }
        return list
    }

    func harness(pausedOffFor: Set<String> = [], channels: [String: String] = [HA.x1c: Self.channel]) -> PipelineHarness {
        var h = PipelineHarness(devices: phones(pausedOffFor: pausedOffFor))
        h.pipeline.setChannels(channels)
        return h
    }

    @Test func oneBroadcastAnUpdateForTheChannelsPhonesAndTokensForTheOthers() {
        var h = harness()
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "40", after: 60)
        h.wait(60)
        h.set(HA.x1c, "_print_status", "finish", after: 60)
        let broadcasts = h.pushes.liveActivity.filter { $0.tokenKind == .channel }
        #expect(broadcasts.events == [.update, .update, .end], "one a change, whatever the number of phones")
        #expect(broadcasts.allSatisfy { $0.token == Self.channel && $0.topic.hasSuffix(".push-type.liveactivity") })
        #expect(broadcasts.map(\.priority) == [10, 5, 10], "the same priorities as a token's")
        #expect(h.pushes.liveActivity.filter { $0.token == ios17 }.events == [.update, .update, .end])
        #expect(h.pushes.liveActivity.count == 6, "nothing else: no phone on the channel gets a push of its own")
        let end = try? #require(broadcasts.last?.json["aps"])
        #expect(end?["dismissal-date"] != nil, "the end's dismissal as a token's")
        #expect(h.pipeline.devices.allSatisfy { $0.channelPrinters.isEmpty && $0.activityTokens.isEmpty },
                "an ended activity is followed no more, by channel or token")
    }

    @Test func aPhoneWithATokenAndTheChannelGetsOnlyTheBroadcast() {
        var both = device("both", printers: [HA.x1c], activity: [HA.x1c: ios17])
        both.channelPrinters = [HA.x1c]
        var h = PipelineHarness(devices: [both])
        h.pipeline.setChannels([HA.x1c: Self.channel])
        h.startPrint(HA.x1c)
        #expect(h.pushes.liveActivity.map(\.token) == [Self.channel])
        // Without a channel (APNs refused one) the token is used.
        var fallback = PipelineHarness(devices: [both])
        fallback.startPrint(HA.x1c)
        #expect(fallback.pushes.liveActivity.map(\.token) == [ios17])
        #expect(fallback.pushes.liveActivity.allSatisfy { $0.tokenKind == .activity })
    }

    @Test func pushToStartSkipsAPhoneOnTheChannel() {
        var phone = device("ios18", printers: [HA.x1c], pushToStart: HA.pushToStartToken)
        phone.channelPrinters = [HA.x1c]
        var h = PipelineHarness(devices: [phone])
        h.pipeline.setChannels([HA.x1c: Self.channel])
        h.startPrint(HA.x1c)
        #expect(!h.pushes.contains { $0.tokenKind == .pushToStart }, "it has an activity already")
    }

    func score(_ push: Push?) -> Double? { push?.json["aps"]?["relevance-score"]?.numberValue }

    @Test func thePrinterAboutToFinishOrNeedingAHandIsFeatured() throws {
        var x1c = device("phone", activity: [HA.x1c: ios17, HA.p1s: String(repeating: "b2", count: 40)])
        x1c.printerPrefixes = []
        var h = PipelineHarness(devices: [x1c])
        h.startPrint(HA.x1c)
        h.startPrint(HA.p1s)
        h.set(HA.x1c, "_print_progress", "95", after: 60)
        h.set(HA.p1s, "_print_progress", "10", after: 1)
        h.wait(60)
        let latest = { (prefix: String) in h.pushes.liveActivity.last { $0.printerPrefix == prefix } }
        let nearEnd = try #require(score(latest(HA.x1c))), justStarted = try #require(score(latest(HA.p1s)))
        #expect(nearEnd == 88 && justStarted == 54, "50 + 0.4 × progress")
        #expect(nearEnd > justStarted)
        h.set(HA.p1s, "_current_stage", "paused_filament_runout", after: 60)
        h.set(HA.p1s, "_print_status", "pause", after: 0.002)
        h.wait(3)
        let paused = try #require(score(latest(HA.p1s)))
        #expect(paused == 100 && paused > nearEnd, "the printer waiting for filament wins")
        #expect(ActivityRelevance.score(status: .complete, progress: 100, hasErrors: false) == 40)
        #expect(ActivityRelevance.score(status: .running, progress: 50, hasErrors: true) == 100)
    }

    func aps(_ push: Push) -> JSONValue? { push.json["aps"] }

    @Test func aPauseLightsTheActivityAndItsAlertGoesQuietly() throws {
        var h = harness()
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_current_stage", "paused_filament_runout", after: 60)
        h.set(HA.x1c, "_print_status", "pause", after: 0.002)
        let paused = h.wait(3)
        let updates = paused.liveActivity
        #expect(updates.count == 2, "the token's and the channel's")
        for update in updates {
            let alert = try #require(aps(update)?["alert"], "\(update.tokenKind)")
            #expect(alert["sound"] == .string("default"))
            #expect(alert["title"] == .string("Print Paused"))
        }
        let alerts = paused.alerts
        #expect(Set(alerts.map(\.deviceID)) == ["ios17", "ios18a", "ios18b"])
        for alert in alerts {
            #expect(aps(alert)?["sound"] == nil, "told audibly once, by the activity: \(alert.deviceID)")
            #expect(aps(alert)?["interruption-level"] == .string("passive"))
        }
    }

    @Test func aPhoneWithThePauseAlertOffIsNeverLitByTheChannel() throws {
        var h = harness(pausedOffFor: ["ios18b"])
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_current_stage", "paused_filament_runout", after: 60)
        h.set(HA.x1c, "_print_status", "pause", after: 0.002)
        let paused = h.wait(3)
        let broadcast = try #require(paused.liveActivity.first { $0.tokenKind == .channel })
        #expect(aps(broadcast)?["alert"] == nil, "one payload for the channel: not every phone on it wants the alert")
        let token = try #require(paused.liveActivity.first { $0.tokenKind == .activity })
        #expect(aps(token)?["alert"] != nil, "the iOS 17 phone's own update carries it")
        let byPhone = Dictionary(uniqueKeysWithValues: paused.alerts.map { ($0.deviceID, $0) })
        #expect(byPhone["ios18b"] == nil, "its switch is off")
        #expect(aps(try #require(byPhone["ios18a"]))?["sound"] == .string("default"), "not lit by its activity: told as before")
        #expect(aps(try #require(byPhone["ios17"]))?["sound"] == nil)
    }

    @Test func aFailureLightsTheActivityByAnUpdateJustBeforeTheEndAndItsAlertGoesQuietly() throws {
        var h = harness()
        h.startPrint(HA.x1c)
        let failed = h.set(HA.x1c, "_print_status", "failed", after: 60) + h.wait(120)
        let activity = failed.liveActivity
        for token in [ios17, Self.channel] {
            let pushes = activity.filter { $0.token == token }
            #expect(pushes.events == [.update, .end], "the update with the alert just before the end: \(token)")
            let update = try #require(pushes.first)
            #expect(update.priority == 10, "a status change, never throttled")
            let alert = try #require(aps(update)?["alert"])
            let ordinary = try #require(failed.alerts.first { $0.event == .failed && $0.deviceID == "ios17" })
            #expect(alert["title"] == aps(ordinary)?["alert"]?["title"] && alert["body"] == aps(ordinary)?["alert"]?["body"],
                    "the words of the \"Print Failed\" alert")
            #expect(alert["title"] == .string("Print Failed ⚠️") && alert["sound"] == .string("default"))
            #expect(aps(update)?["content-state"]?["status"] == .string("failed"))
            #expect(score(update) == 100)
            let end = try #require(pushes.last)
            #expect(aps(end)?["alert"] == nil, "an activity's end carries no alert (ActivityKit)")
            #expect(aps(end)?["dismissal-date"] != nil && score(end) == 100, "the end as before")
        }
        let alerts = failed.alerts.filter { $0.event == .failed }
        #expect(Set(alerts.map(\.deviceID)) == ["ios17", "ios18a", "ios18b"], "every phone keeps its alert (history, picture)")
        for alert in alerts {
            #expect(aps(alert)?["sound"] == nil, "told audibly once, by the activity: \(alert.deviceID)")
            #expect(aps(alert)?["interruption-level"] == .string("passive"))
        }
    }

    @Test func aFailureWithTheSwitchOffOrNoActivityIsAsBefore() throws {
        var phones = phones()
        phones[2].preferences.onFailed = false  // ios18b, on the channel
        phones.append(device("noActivity", printers: [HA.x1c]))
        phones[3].apnsToken = String(repeating: "0c", count: 32)
        var h = PipelineHarness(devices: phones)
        h.pipeline.setChannels([HA.x1c: Self.channel])
        h.startPrint(HA.x1c)
        let failed = h.set(HA.x1c, "_print_status", "failed", after: 60) + h.wait(120)
        #expect(failed.liveActivity.filter { $0.tokenKind == .channel }.events == [.end],
                "not every phone on the channel wants it: no update, the end as before")
        #expect(failed.liveActivity.filter { $0.token == ios17 }.events == [.update, .end])
        let byPhone = Dictionary(uniqueKeysWithValues: failed.alerts.filter { $0.event == .failed }.map { ($0.deviceID, $0) })
        #expect(byPhone["ios18b"] == nil, "its switch is off")
        #expect(aps(try #require(byPhone["ios18a"]))?["sound"] == .string("default"), "not lit: told audibly")
        #expect(aps(try #require(byPhone["noActivity"]))?["sound"] == .string("default"), "no activity: told audibly")
        #expect(aps(try #require(byPhone["ios17"]))?["interruption-level"] == .string("passive"))
    }

    @Test func aPrintLostWhileThePrinterWasAwayLightsWithItsReason() throws {
        var h = harness()
        h.startPrint(HA.x1c)
        h.set(HA.x1c, "_print_progress", "40", after: 60)
        h.wait(60)
        h.set(HA.x1c, "_print_status", "offline", after: 10)
        h.wait(600)
        let gone = h.set(HA.x1c, "_print_status", "idle", after: 1) + h.wait(60)
        let update = try #require(gone.liveActivity.first { $0.token == ios17 && $0.event == .update && aps($0)?["alert"] != nil })
        let ordinary = try #require(gone.alerts.first { $0.event == .failed && $0.deviceID == "ios17" })
        #expect(aps(update)?["alert"]?["body"] == aps(ordinary)?["alert"]?["body"], "the same words as the alert")
        #expect(ordinary.reason == "The printer went offline mid-print.")
    }
}
