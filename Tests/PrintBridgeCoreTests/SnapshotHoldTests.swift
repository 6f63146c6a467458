import Testing
@testable import PrintBridgeCore

/// An alert waiting for its picture: held at most until its hold ends,
/// released at once with its final payload when the picture comes, and the
/// phone's later pushes wait behind it so its alerts keep their order.
@Suite struct SnapshotHoldTests {
    let phone = String(repeating: "a1", count: 32)
    let otherPhone = String(repeating: "b2", count: 32)

    func entry(_ sequence: Int, _ token: String, _ event: Push.Event, kind: Push.Kind = .alert) -> Outbox.Entry {
        Outbox.Entry(sequence: sequence, push: Push(
            kind: kind, event: event, printerPrefix: "x1c", deviceID: "d", token: token, tokenKind: .device,
            topic: "app", priority: 10, collapseID: nil, expiration: EpochTime(seconds: 90_000),
            payload: Array("{\"aps\":{\"alert\":{\"title\":\"t\",\"body\":\"b\"}}}".utf8), createdAt: EpochTime(seconds: 0)))
    }

    func at(_ seconds: Double) -> EpochTime { EpochTime(seconds: seconds) }

    @Test func aHeldAlertGoesWhenItsPictureComesWithThePictureInIt() {
        var outbox = Outbox()
        let complete = entry(1, phone, .complete)
        #expect(outbox.add(complete, now: at(100), holdUntil: at(103)).send.isEmpty)
        #expect(outbox.held == 1)
        #expect(outbox.nextDeadline == at(103), "the agent wakes when the hold ends")
        let withPicture = Array("{\"picture\":1}".utf8)
        let (released, actions) = outbox.release(1, token: phone, payload: withPicture, now: at(101.2))
        #expect(released)
        #expect(actions.send.map(\.sequence) == [1])
        #expect(actions.send.first?.push.payload == withPicture)
        #expect(outbox.held == 0)
        // Released once: a late second answer changes nothing.
        #expect(outbox.release(1, token: phone, payload: nil, now: at(102)).released == false)
    }

    @Test func withoutAPictureInTimeTheAlertGoesAsItWasAtTheHoldsEnd() {
        var outbox = Outbox()
        let failed = entry(1, phone, .failed)
        _ = outbox.add(failed, now: at(100), holdUntil: at(103))
        #expect(outbox.due(at: at(102.9)).send.isEmpty, "not before its hold ends")
        let sent = outbox.due(at: at(103)).send
        #expect(sent.map(\.sequence) == [1])
        #expect(sent.first?.push.payload == failed.push.payload)
        // The picture that comes later is not put into an alert already sent.
        let late = outbox.release(1, token: phone, payload: Array("{}".utf8), now: at(104))
        #expect(late.released == false && late.actions.isEmpty)
    }

    @Test func thePhonesLaterPushesWaitBehindTheHeldAlertOthersDoNot() {
        var outbox = Outbox()
        let complete = entry(1, phone, .complete)
        let history = entry(2, phone, .history, kind: .background)
        let elsewhere = entry(3, otherPhone, .complete)
        #expect(outbox.add(complete, now: at(100), holdUntil: at(103)).send.isEmpty)
        #expect(outbox.add(history, now: at(100)).send.isEmpty, "behind the held alert of the same phone")
        #expect(outbox.add(elsewhere, now: at(100)).send.map(\.sequence) == [3], "another phone is not held up")
        let released = outbox.release(1, token: phone, payload: nil, now: at(100.5))
        #expect(released.actions.send.map(\.sequence) == [1], "the alert first")
        #expect(outbox.answered(complete, .delivered(apnsID: "x"), now: at(100.6)).send.map(\.sequence) == [2])
    }

    @Test func aHeldAlertBehindAPushInFlightGoesWhenItsTurnComes() {
        var outbox = Outbox()
        let started = entry(1, phone, .started)
        let paused = entry(2, phone, .paused)
        #expect(outbox.add(started, now: at(100)).send.map(\.sequence) == [1])
        _ = outbox.add(paused, now: at(100), holdUntil: at(103))
        // The picture comes while the first push is still in flight: nothing goes yet.
        #expect(outbox.release(2, token: phone, payload: nil, now: at(101)).actions.send.isEmpty)
        #expect(outbox.answered(started, .delivered(apnsID: "x"), now: at(101.5)).send.map(\.sequence) == [2])
    }

    @Test func aHoldThatEndedWhileAnotherPushWasInFlightDoesNotHoldItBack() {
        var outbox = Outbox()
        let started = entry(1, phone, .started)
        let complete = entry(2, phone, .complete)
        _ = outbox.add(started, now: at(100))
        _ = outbox.add(complete, now: at(100), holdUntil: at(103))
        #expect(outbox.answered(started, .delivered(apnsID: "x"), now: at(104)).send.map(\.sequence) == [2])
    }

    @Test func aRefusedTokenTakesItsHeldAlertWithIt() {
        var outbox = Outbox()
        let started = entry(1, phone, .started)
        let complete = entry(2, phone, .complete)
        _ = outbox.add(started, now: at(100))
        _ = outbox.add(complete, now: at(100), holdUntil: at(103))
        let actions = outbox.answered(
            started, .rejected(status: 410, reason: .unregistered, tokenAction: .remove), now: at(100.5))
        #expect(actions.settled.map(\.entry.sequence) == [1, 2])
        #expect(outbox.held == 0 && outbox.count == 0 && outbox.nextDeadline == nil)
    }

    @Test func thePictureGoesIntoTheAlertsPayloadWithinAPNsLimit() throws {
        let payload = try AlertPayload(
            event: .complete, prefix: "x1c", printerName: "X1C", fileName: "benchy.3mf", status: .complete, progress: 100
        ).encoded()
        let link = "/api/snapshots/0123456789abcdef0123456789abcdef.jpg?expires=1800000000&sig=abc-_"
        let bytes = try #require(AlertPayload.addingSnapshot(link: link, to: payload))
        let json = try JSONParser.parse(bytes)
        #expect(json["aps"]?["mutable-content"] == 1)
        #expect(json[AlertPayload.snapshotKey]?.stringValue == link)
        // Everything else is as it was.
        var stripped = json.objectValue!
        stripped[AlertPayload.snapshotKey] = nil
        var aps = stripped["aps"]!.objectValue!
        aps["mutable-content"] = nil
        stripped["aps"] = .object(aps)
        #expect(JSONValue.object(stripped) == (try JSONParser.parse(payload)))
        // Not an alert (a Live Activity update): left alone.
        #expect(AlertPayload.addingSnapshot(link: link, to: Array(#"{"aps":{"event":"update"}}"#.utf8)) == nil)
        // Over 4096 bytes with the link: the alert goes without it.
        let full = Array(("{\"aps\":{\"alert\":{\"title\":\"t\",\"body\":\"" + String(repeating: "x", count: 4040) + "\"}}}").utf8)
        #expect(full.count <= 4096)
        #expect(AlertPayload.addingSnapshot(link: link, to: full) == nil)
    }

    @Test func onlyTheAlertsAboutHowAPrintStoppedWantAPictureAndOnlyForPhonesThatWantOne() {
        let events: [Push.Event] = [
            .started, .paused, .complete, .failed, .cancelled, .milestone, .printerError, .bedCooled, .resumed, .offline,
            .backOnline, .update, .end, .start, .history,
        ]
        #expect(events.filter(\.mayCarrySnapshot) == [.paused, .complete, .failed, .printerError])
        #expect(SnapshotLink.expiry(of: "/api/snapshots/a.jpg?expires=1800000000&sig=x") == EpochTime(seconds: 1_800_000_000))
        #expect(SnapshotLink.expiry(of: "/api/snapshots/a.jpg") == nil)
        let sent = SentNotification(
            id: 1, deviceID: "d", printer: "p", event: .complete, title: "t", body: "b", createdAt: at(0), apnsID: "a",
            snapshot: "/api/snapshots/a.jpg?expires=1000&sig=x")
        #expect(sent.snapshot(at: at(999)) != nil)
        #expect(sent.snapshot(at: at(1000)) == nil, "listed only while the link lives")
    }
}

extension SnapshotHoldTests {
    /// Shutting down, an alert does not wait for its picture: it goes at once
    /// (the grace period is for its answer), and the phone's later pushes follow.
    @Test func atShutdownEveryHeldAlertGoesAtOnce() {
        var outbox = Outbox()
        _ = outbox.add(entry(1, phone, .complete), now: at(100), holdUntil: at(103))
        _ = outbox.add(entry(2, phone, .history, kind: .background), now: at(100))
        _ = outbox.add(entry(3, otherPhone, .failed), now: at(100), holdUntil: at(103))
        let actions = outbox.releaseAll(now: at(100.5))
        #expect(actions.send.map(\.sequence).sorted() == [1, 3])
        #expect(outbox.held == 0 && outbox.count == 3)
    }
}
