import PrintBridgeCore
import Testing

@testable import Agent

/// The channel keeping as a state machine: what it asks APNs and when, and
/// what it keeps (docs/BEHAVIOUR.md, "Broadcast channels").
@Suite struct ChannelKeeperTests {
    let t0 = EpochTime(seconds: 1_800_000_000)
    let busy = ChannelFailure.rejected(status: 500, reason: .internalServerError)

    @Test func itListsFirstThenMakesAChannelPerPrinter() {
        var keeper = ChannelKeeper(channels: [:], lastSeen: [:], deletions: [])
        _ = keeper.saw(["a", "b"], complete: false, now: t0)
        #expect(keeper.start(now: t0) == [.list], "nothing made before APNs' list is known")
        #expect(keeper.finished(.list, .listed([]), now: t0).isEmpty)
        #expect(keeper.start(now: t0) == [.create(printer: "a"), .create(printer: "b")])
        #expect(keeper.start(now: t0).isEmpty, "in flight: not asked twice")
        #expect(keeper.finished(.create(printer: "a"), .created("QQ=="), now: t0) == [.save(printer: "a", channel: "QQ==")])
        #expect(keeper.channels == ["a": "QQ=="])
    }

    @Test func aFailureIsTriedAgainAfterADoublingBackOffAndNothingIsLost() {
        var keeper = ChannelKeeper(channels: [:], lastSeen: [:], deletions: [])
        _ = keeper.saw(["a"], complete: false, now: t0)
        _ = keeper.start(now: t0)
        _ = keeper.finished(.list, .listed([]), now: t0)
        var now = t0
        var waits: [Double] = []
        for _ in 0..<5 {
            #expect(keeper.start(now: now) == [.create(printer: "a")])
            let changes = keeper.finished(.create(printer: "a"), .failed(busy), now: now)
            guard case .retrying(_, _, let at)? = changes.first, let next = keeper.nextDeadline else {
                Issue.record("no retry: \(changes)")
                return
            }
            #expect(next == at)
            #expect(keeper.start(now: next + -0.5).isEmpty, "not before its back-off")
            waits.append(next - now)
            now = next
        }
        #expect(waits == [2, 4, 8, 16, 32])
        _ = keeper.start(now: now)
        _ = keeper.finished(.create(printer: "a"), .created("QQ=="), now: now)
        #expect(keeper.channels == ["a": "QQ=="] && keeper.nextDeadline == nil)
    }

    @Test func aLastingRefusalIsSaidOnceAndPausesChannels() {
        var keeper = ChannelKeeper(channels: [:], lastSeen: [:], deletions: [])
        _ = keeper.saw(["a", "b"], complete: false, now: t0)
        _ = keeper.start(now: t0)
        _ = keeper.finished(.list, .listed([]), now: t0)
        _ = keeper.start(now: t0)
        let off = ChannelFailure.rejected(status: 400, reason: .featureNotEnabled)
        #expect(keeper.finished(.create(printer: "a"), .failed(off), now: t0) == [.refused(off)])
        #expect(keeper.finished(.create(printer: "b"), .failed(off), now: t0).isEmpty, "said once")
        #expect(keeper.start(now: t0 + 3600).isEmpty, "the printers go by token meanwhile")
        #expect(keeper.nextDeadline == t0 + keeper.refusalPause)
        #expect(keeper.start(now: t0 + keeper.refusalPause).count == 2, "asked again a day later")
    }

    @Test func aPrinterGoneFromHomeAssistantForADayHasItsChannelDeleted() {
        var keeper = ChannelKeeper(channels: ["a": "QQ==", "b": "Qg=="], lastSeen: ["a": t0, "b": t0], deletions: [])
        #expect(keeper.saw(["a"], complete: true, now: t0 + 3600) == [.sawPrinters(["a"])], "an hour away: kept")
        #expect(keeper.saw([], complete: true, now: t0 + 2 * 86400).isEmpty, "an empty list (HA starting) proves nothing")
        let changes = keeper.saw(["a"], complete: true, now: t0 + 86400)
        #expect(changes == [.sawPrinters(["a"]), .retire(printer: "b")])
        #expect(keeper.start(now: t0 + 86400) == [.list, .delete(channel: "Qg==")])
        _ = keeper.finished(.list, .listed(["QQ==", "Qg==", "someone-else="]), now: t0 + 86400)
        #expect(keeper.start(now: t0 + 86400).isEmpty, "never another agent's channel")
        #expect(keeper.finished(.delete(channel: "Qg=="), .deleted, now: t0 + 86400) == [.forget(channel: "Qg==")])
        #expect(keeper.deletions.isEmpty)
    }

    @Test func aChannelAPNsNoLongerKnowsIsMadeAgain() {
        var keeper = ChannelKeeper(channels: ["a": "QQ=="], lastSeen: ["a": t0], deletions: ["old="])
        _ = keeper.saw(["a"], complete: false, now: t0)
        _ = keeper.start(now: t0)
        let changes = keeper.finished(.list, .listed([]), now: t0)
        #expect(changes == [.forget(channel: "QQ=="), .forget(channel: "old=")])
        #expect(keeper.start(now: t0) == [.create(printer: "a")])
        _ = keeper.finished(.create(printer: "a"), .created("Tm8="), now: t0)
        #expect(keeper.channelGone("Tm8=") == [.forget(channel: "Tm8=")], "a broadcast refused: ChannelNotRegistered")
        #expect(keeper.start(now: t0) == [.create(printer: "a")])
    }
}
