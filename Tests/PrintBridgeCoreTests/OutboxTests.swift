import PrinterActivityContent
import Testing
@testable import PrintBridgeCore

/// The outbox's rules, with time given by hand: nothing is lost while APNs
/// is away, nothing is sent twice, a phone's alerts keep their order, and
/// only the latest Live Activity state waits.
@Suite struct OutboxTests {
    let phone = String(repeating: "a1", count: 32)
    let otherPhone = String(repeating: "b2", count: 32)
    let activity = String(repeating: "c3", count: 40)
    var sequence = 0

    mutating func entry(
        _ token: String, _ event: Push.Event, kind: Push.Kind = .alert, at seconds: Double = 0, lifetime: Double = 86_400
    ) -> Outbox.Entry {
        sequence += 1
        return Outbox.Entry(sequence: sequence, push: Push(
            kind: kind, event: event, printerPrefix: "x1c", deviceID: "d", token: token,
            tokenKind: kind == .alert ? .device : .activity, topic: "app", priority: 10, collapseID: nil,
            expiration: EpochTime(seconds: seconds + lifetime), payload: [], createdAt: EpochTime(seconds: seconds)))
    }

    let unreachable = PushOutcome.gaveUp(cause: .connection("Failed to connect"), attempts: 5)
    let delivered = PushOutcome.delivered(apnsID: "x")
    func at(_ seconds: Double) -> EpochTime { EpochTime(seconds: seconds) }

    @Test mutating func aLaneWithAPushInFlightHasNoDeadlineUntilItIsAnswered() {
        var outbox = Outbox(firstRetryDelay: 2, maximumRetryDelay: 30)
        let started = entry(phone, .started)
        #expect(outbox.add(started, now: at(1_000)).send == [started])
        _ = outbox.answered(started, unreachable, now: at(1_000))
        #expect(outbox.nextDeadline == at(1_002))
        // The retry goes out; while it is in flight nothing else is due
        // (the agent would otherwise wake again and again).
        #expect(outbox.due(at: at(1_002)).send == [started])
        #expect(outbox.nextDeadline == nil)
        _ = outbox.answered(started, unreachable, now: at(1_005))
        #expect(outbox.nextDeadline == at(1_009), "the second wait doubles to 4 s")
    }

    @Test mutating func aPushIsSentAtOnceAndSettledOnlyByAnAnswer() {
        var outbox = Outbox()
        let started = entry(phone, .started)
        #expect(outbox.add(started, now: at(0)).send == [started])
        #expect(outbox.count == 1, "kept until APNs answers")
        let actions = outbox.answered(started, delivered, now: at(0.1))
        #expect(actions.settled.map(\.settlement) == [.delivered])
        #expect(outbox.count == 0)
    }

    @Test mutating func anOutageOfMinutesLosesNothingAndSendsEachOnceInOrder() {
        var outbox = Outbox(firstRetryDelay: 2, maximumRetryDelay: 60)
        let alerts = [entry(phone, .started), entry(phone, .milestone), entry(phone, .complete)]
        var sent: [Outbox.Entry] = []
        sent += outbox.add(alerts[0], now: at(0)).send
        sent += outbox.add(alerts[1], now: at(1)).send
        sent += outbox.add(alerts[2], now: at(2)).send
        #expect(sent == [alerts[0]], "one at a time per phone: the rest wait behind the first")
        // APNs is away for 5 minutes: every attempt fails, with growing waits.
        var now = 3.0
        var attempts = 0
        var inFlight = alerts[0]
        var waits: [Double] = []
        while now < 300 {
            let after = outbox.answered(inFlight, unreachable, now: at(now))
            #expect(after.send.isEmpty && after.settled.isEmpty, "nothing given up, nothing sent before the back-off")
            attempts += 1
            let next = outbox.nextDeadline!.seconds
            waits.append(next - now)
            now = next
            let retry = outbox.due(at: at(now)).send
            #expect(retry == [alerts[0]], "the same first alert again, never a later one first")
            inFlight = retry[0]
        }
        #expect(waits.prefix(6) == [2, 4, 8, 16, 32, 60] && waits.last == 60, "\(waits)")
        #expect(outbox.count == 3)
        // APNs is back: each goes once, in order.
        var delivered: [Push.Event] = []
        var next: [Outbox.Entry] = [inFlight]
        while let current = next.first {
            let actions = outbox.answered(current, self.delivered, now: at(now))
            delivered += actions.settled.map(\.entry.push.event)
            next = actions.send
        }
        #expect(delivered == [.started, .milestone, .complete])
        #expect(outbox.count == 0 && outbox.nextDeadline == nil)
        #expect(attempts > 5)
    }

    @Test mutating func anAnswerForOnePhoneBringsTheOthersRetriesForward() {
        var outbox = Outbox(firstRetryDelay: 30, maximumRetryDelay: 60)
        let first = entry(phone, .complete)
        let second = entry(otherPhone, .complete)
        _ = outbox.add(first, now: at(0))
        _ = outbox.add(second, now: at(0))
        _ = outbox.answered(first, unreachable, now: at(1))
        #expect(outbox.waiting == 1)
        let actions = outbox.answered(second, delivered, now: at(2))
        #expect(actions.send == [first], "APNs answered: no need to wait 30 s more")
    }

    @Test mutating func aWaitingLiveActivityUpdateIsSupersededByTheNextAndByTheEnd() {
        var outbox = Outbox()
        let first = entry(activity, .update, kind: .liveActivity, lifetime: 900)
        _ = outbox.add(first, now: at(0))
        _ = outbox.answered(first, unreachable, now: at(1))
        let second = entry(activity, .update, kind: .liveActivity, at: 30, lifetime: 900)
        var actions = outbox.add(second, now: at(30))
        #expect(actions.settled.map(\.entry) == [first] && actions.settled.map(\.settlement) == [.superseded])
        #expect(actions.send == [second], "the newest state goes now")
        let third = entry(activity, .update, kind: .liveActivity, at: 60, lifetime: 900)
        actions = outbox.add(third, now: at(60))
        #expect(actions.settled.isEmpty && actions.send.isEmpty, "the one in flight is never withdrawn")
        let end = entry(activity, .end, kind: .liveActivity, at: 90, lifetime: 3600)
        actions = outbox.add(end, now: at(90))
        #expect(actions.settled.map(\.entry) == [third], "the end makes the waiting update pointless")
        actions = outbox.answered(second, delivered, now: at(91))
        #expect(actions.send == [end])
        let alert = entry(phone, .milestone)
        _ = outbox.add(alert, now: at(92))
        _ = outbox.answered(alert, unreachable, now: at(93))
        let later = entry(phone, .complete)
        #expect(outbox.add(later, now: at(94)).settled.isEmpty, "alerts are never superseded")
    }

    /// A failure's update carrying its alert, then the end: an outage must
    /// not let the end take the alert away (the phone's own alert went quietly).
    func state(_ status: String) -> PrinterActivityAttributes.ContentState {
        .init(progress: 12, currentLayer: 1, totalLayers: 9, remainingSeconds: 60, status: status, nozzleTemp: 220, bedTemp: 60)
    }

    @Test mutating func anUpdateCarryingAnAlertIsNeverSuperseded() throws {
        var outbox = Outbox()
        let before = entry(activity, .update, kind: .liveActivity, lifetime: 900)
        var plain = entry(activity, .update, kind: .liveActivity, lifetime: 900)
        plain.push.payload = try LiveActivityPayload.update(
            state(#"x "alert":{ y"#), at: at(0), staleAfter: 900).encoded()
        var lit = entry(activity, .update, kind: .liveActivity, lifetime: 900)
        lit.push.payload = try LiveActivityPayload.update(
            state("failed"), at: at(0), staleAfter: 900,
            alert: .init(title: "Print Failed ⚠️", body: "b", sound: "default")).encoded()
        let end = entry(activity, .end, kind: .liveActivity, at: 2, lifetime: 3600)
        #expect(lit.push.carriesActivityAlert && !plain.push.carriesActivityAlert, "a value's quotes are escaped")
        _ = outbox.add(before, now: at(0))
        _ = outbox.answered(before, unreachable, now: at(1))
        var settled: [Outbox.Entry] = []
        for next in [plain, lit, end] { settled += outbox.add(next, now: at(2)).settled.map(\.entry) }
        #expect(settled == [before, plain], "only the updates that only show a state")
        #expect(outbox.count == 2)
        let sent = outbox.due(at: try #require(outbox.nextDeadline)).send
        #expect(sent == [lit], "the alert first, then the end")
        #expect(outbox.answered(lit, delivered, now: at(9)).send == [end])
        var restarted = Outbox()
        let kept = restarted.restore([lit, end], now: at(4))
        #expect(kept.settled.isEmpty && kept.send == [lit], "after a restart too")
    }

    @Test mutating func aPushPastItsExpiryIsSettledAsExpiredAndTheNextGoes() {
        var outbox = Outbox(firstRetryDelay: 60, maximumRetryDelay: 3600)
        let update = entry(activity, .update, kind: .liveActivity, lifetime: 900)
        let start = entry(activity, .start, kind: .liveActivity, at: 10, lifetime: 7200)
        _ = outbox.add(update, now: at(0))
        _ = outbox.add(start, now: at(10))
        var now = 0.0
        var current = update
        var actions = Outbox.Actions()
        while actions.settled.isEmpty {
            now += 1
            _ = outbox.answered(current, unreachable, now: at(now))
            now = outbox.nextDeadline!.seconds
            actions = outbox.due(at: at(now))
            if let sent = actions.send.first, actions.settled.isEmpty { current = sent }
        }
        #expect(now >= 900)
        #expect(actions.settled.map(\.entry) == [update] && actions.settled.map(\.settlement) == [.expired])
        #expect(actions.send == [start])
        let stale = entry(phone, .started, lifetime: 10)
        #expect(outbox.add(stale, now: at(20)).settled.map(\.settlement) == [.expired], "restored after its expiry")
    }

    @Test mutating func aRestartSendsWhatWasKeptButNotTheUpdatesAnEndMadePointless() {
        var outbox = Outbox()
        let kept = [
            entry(activity, .update, kind: .liveActivity, lifetime: 900), entry(phone, .started),
            entry(activity, .update, kind: .liveActivity, at: 30, lifetime: 900), entry(phone, .complete),
            entry(activity, .end, kind: .liveActivity, at: 60, lifetime: 3600),
            entry(otherPhone, .started, lifetime: 10),
        ]
        let actions = outbox.restore(kept.shuffled(), now: at(100))
        #expect(Set(actions.send) == [kept[1], kept[4]], "each phone's first, in the order made")
        #expect(Set(actions.settled.map(\.entry)) == [kept[0], kept[2], kept[5]])
        #expect(actions.settled.first { $0.entry == kept[5] }?.settlement == .expired)
        #expect(outbox.answered(kept[1], delivered, now: at(101)).send == [kept[3]])
    }

    @Test mutating func aRefusedTokenTakesItsWaitingPushesWithIt() {
        var outbox = Outbox()
        let first = entry(phone, .started)
        let second = entry(phone, .milestone)
        _ = outbox.add(first, now: at(0))
        _ = outbox.add(second, now: at(0))
        let actions = outbox.answered(
            first, .rejected(status: 410, reason: "Unregistered", tokenAction: .remove), now: at(1))
        #expect(actions.settled.map(\.entry) == [first, second])
        #expect(actions.send.isEmpty && outbox.count == 0)
        let third = entry(otherPhone, .started)
        let fourth = entry(otherPhone, .complete)
        _ = outbox.add(third, now: at(2))
        _ = outbox.add(fourth, now: at(2))
        #expect(outbox.dropToken(otherPhone).settled.map(\.entry) == [fourth], "the one in flight gets its own answer")
        #expect(outbox.answered(third, delivered, now: at(3)).send.isEmpty)
    }

    @Test mutating func aPermanentRejectionMovesOnToTheNext() {
        var outbox = Outbox()
        let tooBig = entry(phone, .started)
        let next = entry(phone, .complete)
        _ = outbox.add(tooBig, now: at(0))
        _ = outbox.add(next, now: at(0))
        let actions = outbox.answered(tooBig, .rejected(status: 413, reason: "PayloadTooLarge", tokenAction: nil), now: at(1))
        #expect(actions.settled.map(\.settlement) == [.rejected])
        #expect(actions.send == [next])
    }
}

