import Testing
@testable import PrintBridgeCore

/// `call_service` through the session (issue 31's printer actions): sent
/// only when live, HA's answer or its absence told once per call.
@Suite struct ServiceCallTests {
    let session = HASessionTests()
    var t0: EpochTime { session.t0 }

    func answer(_ text: String) -> HAMessage { try! HAMessage(json: (try? JSONParser.parse(text)) ?? .null) }

    @Test func aButtonPressIsOneCallServiceRequestAndHAsAnswerEndsIt() throws {
        var live = session.liveSession()
        let callLive = live.callService(domain: "button", service: "press", entityID: "button.x1c_pause_printing", at: t0)
        let (id, commands) = try #require(callLive)
        let sent = session.sent(commands).map(session.json)
        #expect(sent == [.object([
            "id": .number(Double(id)), "type": .string("call_service"), "domain": .string("button"),
            "service": .string("press"), "target": .object(["entity_id": .string("button.x1c_pause_printing")]),
        ])])
        _ = live.takeNotices()
        #expect(live.received(answer(#"{"id":\#(id),"type":"result","success":true,"result":{"context":{"id":"c"}}}"#), at: t0).isEmpty)
        #expect(live.takeNotices() == [.serviceCallEnded(id: id, .done)])
        // HA's refusal, in its words, and not logged as a failed request of the session's own.
        let secondCall = live.callService(domain: "button", service: "press", entityID: "button.octoprint_pause_job", at: t0)
        let (second, _) = try #require(secondCall)
        #expect(second == id + 1)
        _ = live.received(answer(
            #"{"id":\#(second),"type":"result","success":false,"error":{"code":"home_assistant_error","message":"Printer is not printing"}}"#), at: t0)
        #expect(live.takeNotices() == [.serviceCallEnded(id: second, .refused(code: "home_assistant_error", message: "Printer is not printing"))])
        #expect(live.phase == .live, "a refused call keeps the connection")
    }

    @Test func nothingIsSentBeforeTheSessionIsLive() {
        var connecting = HASession(accessToken: "t")
        _ = connecting.start(at: t0)
        _ = connecting.connected(at: t0)
        #expect(connecting.callService(domain: "button", service: "press", entityID: "button.a", at: t0) == nil)
    }

    @Test func aLostConnectionOrASilentHAEndsTheCall() throws {
        var live = session.liveSession()
        let callLive = live.callService(domain: "button", service: "press", entityID: "button.a", at: t0)
        let (lost, _) = try #require(callLive)
        _ = live.takeNotices()
        _ = live.disconnected(at: t0 + 1, random: 0.5)
        #expect(live.takeNotices().contains(.serviceCallEnded(id: lost, .connectionLost)))

        var quiet = session.liveSession()
        let callQuiet = quiet.callService(domain: "button", service: "press", entityID: "button.a", at: t0)
        let (timed, _) = try #require(callQuiet)
        _ = quiet.takeNotices()
        #expect(quiet.nextDeadline == t0 + 10, "the call's timeout comes before the next ping")
        _ = quiet.tick(at: t0 + 9.9)
        #expect(quiet.takeNotices().isEmpty)
        _ = quiet.tick(at: t0 + 10)
        #expect(quiet.takeNotices() == [.serviceCallEnded(id: timed, .timedOut)])
        // An answer after the timeout is nobody's.
        _ = quiet.received(answer(#"{"id":\#(timed),"type":"result","success":true,"result":null}"#), at: t0 + 11)
        #expect(quiet.takeNotices().isEmpty)
    }
}
