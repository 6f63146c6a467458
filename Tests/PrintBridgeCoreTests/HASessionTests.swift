import Testing
@testable import PrintBridgeCore

@Suite struct HASessionTests {
    let token = "secret-long-lived-token"
    let t0 = EpochTime(seconds: 1_000_000)

    func sent(_ commands: [HASession.Command]) -> [String] {
        commands.compactMap { if case .send(let text) = $0 { return text } else { return nil } }
    }

    func json(_ text: String) -> JSONValue { (try? JSONParser.parse(text)) ?? .null }

    /// A session brought to `live` at t0.
    func liveSession() -> HASession {
        var session = HASession(accessToken: token)
        _ = session.start(at: t0)
        _ = session.connected(at: t0)
        _ = session.received(.authRequired(haVersion: "2026.11.2"), at: t0)
        _ = session.received(.authOK(haVersion: "2026.11.2"), at: t0)
        _ = session.received(.result(result(id: 4, success: true)), at: t0)
        return session
    }

    func result(id: Int, success: Bool) -> HAResult {
        let text = success ? #"{"id":\#(id),"type":"result","success":true,"result":null}"#
            : #"{"id":\#(id),"type":"result","success":false,"error":{"code":"unauthorized","message":"Unauthorized"}}"#
        guard case .result(let result) = try! HAMessage(json: json(text)) else { fatalError() }
        return result
    }

    @Test func authThenRegistrySnapshotAndSubscriptionWithIncreasingIDs() {
        var session = HASession(accessToken: token)
        #expect(session.start(at: t0) == [.connect])
        #expect(session.connected(at: t0).isEmpty, "HA speaks first")
        let auth = sent(session.received(.authRequired(haVersion: nil), at: t0))
        #expect(auth.map(json) == [.object(["type": "auth", "access_token": .string(token)])])
        let requests = sent(session.received(.authOK(haVersion: "2026.11.2"), at: t0)).map(json)
        #expect(requests.compactMap { $0["type"]?.stringValue } == [
            "supported_features", "config/entity_registry/list_for_display", "get_states", "subscribe_events",
        ])
        #expect(requests.compactMap { $0["id"]?.intValue } == [1, 2, 3, 4])
        // ha-bambulab's bus events once the registry answers (HA allows them to admins only).
        let bambu = sent(session.received(.result(result(id: 2, success: true)), at: t0)).map(json)
        #expect(bambu.first?["id"] == .number(5) && bambu.first?["event_type"] == .string("bambu_lab_event"))
        #expect(requests[0]["features"]?["coalesce_messages"] == .number(1))
        #expect(requests[3]["event_type"] == .string("state_changed"))
        #expect(session.phase == .synchronising)
        _ = session.received(.result(result(id: 4, success: true)), at: t0)
        #expect(session.phase == .live)
        #expect(session.takeNotices().contains(.live))
    }

    @Test func idsRestartAtOneOnEveryConnection() {
        var session = liveSession()
        _ = session.disconnected(at: t0 + 5, random: 0)
        _ = session.tick(at: t0 + 100)
        _ = session.connected(at: t0 + 100)
        _ = session.received(.authRequired(haVersion: nil), at: t0 + 100)
        let ids = sent(session.received(.authOK(haVersion: nil), at: t0 + 100)).compactMap { json($0)["id"]?.intValue }
        #expect(ids == [1, 2, 3, 4])
    }

    /// HA writes a pong behind whatever it has queued; with a backlog of
    /// events the agent reads for longer than the timeout, the pong is late
    /// but the link is plainly alive. Silence after the last event still
    /// closes it within the timeout.
    @Test func aPongLateBehindABacklogOfEventsKeepsTheLink() {
        var session = liveSession()
        _ = session.tick(at: t0 + 30)  // ping
        for second in stride(from: 31.0, through: 60.0, by: 3) {
            session.receivedUnparsedEvent(at: t0 + second)
            #expect(session.tick(at: t0 + second + 2.5).isEmpty, "events still arriving at \(second) s")
        }
        #expect(session.nextDeadline == t0 + 58 + 10)
        #expect(session.tick(at: t0 + 67.9).isEmpty)
        #expect(session.tick(at: t0 + 68) == [.close(reason: "no pong within 10 s")])
        #expect(session.takeNotices().contains(.pongMissing))
    }

    @Test func pingsEvery30SecondsAndDropsASilentLink() {
        var session = liveSession()
        #expect(session.tick(at: t0 + 29).isEmpty)
        let ping = sent(session.tick(at: t0 + 30)).map(json)
        #expect(ping.first?["type"] == .string("ping"))
        #expect(ping.first?["id"] == .number(5))
        _ = session.received(.pong(id: 5), at: t0 + 30.01)
        #expect(session.tick(at: t0 + 45).isEmpty)
        _ = session.tick(at: t0 + 60)  // next ping
        #expect(session.tick(at: t0 + 69).isEmpty)
        #expect(session.tick(at: t0 + 70) == [.close(reason: "no pong within 10 s")])
        #expect(session.takeNotices().contains(.pongMissing))
    }

    @Test func reconnectsWithCappedJitteredExponentialBackOff() {
        var session = liveSession()
        var waits: [Double] = []
        var now = t0
        for _ in 0..<9 {
            _ = session.disconnected(at: now, random: 1)
            let due = session.reconnectAt!
            waits.append(due - now)
            #expect(session.tick(at: due + (-0.01)).isEmpty)
            #expect(session.tick(at: due) == [.connect])
            now = due
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        _ = session.disconnected(at: now, random: 0)
        #expect(session.reconnectAt! - now == 30, "jitter takes up to half off")
    }

    @Test func reachingLiveResetsTheBackOff() {
        var session = liveSession()
        for _ in 0..<4 { _ = session.disconnected(at: t0, random: 1); _ = session.tick(at: t0 + 100) }
        _ = session.connected(at: t0 + 100)
        _ = session.received(.authRequired(haVersion: nil), at: t0 + 100)
        _ = session.received(.authOK(haVersion: nil), at: t0 + 100)
        _ = session.received(.result(result(id: 4, success: true)), at: t0 + 100)
        _ = session.disconnected(at: t0 + 200, random: 1)
        #expect(session.reconnectAt! - (t0 + 200) == 1)
    }

    @Test func aRejectedTokenWaitsMinutesNotAHotLoop() {
        var session = HASession(accessToken: token)
        _ = session.start(at: t0)
        _ = session.connected(at: t0)
        _ = session.received(.authRequired(haVersion: nil), at: t0)
        #expect(session.received(.authInvalid(message: "Invalid access token or password"), at: t0)
                == [.close(reason: "authentication rejected")])
        _ = session.disconnected(at: t0, random: 1)
        #expect(session.reconnectAt == t0 + 300)
        #expect(session.tick(at: t0 + 299).isEmpty)
        #expect(session.tick(at: t0 + 300) == [.connect])
        #expect(session.takeNotices().contains(.authRejected(message: "Invalid access token or password")))
    }

    @Test func aRefusedSubscriptionClosesButARefusedRegistryDoesNot() {
        var session = HASession(accessToken: token)
        _ = session.start(at: t0)
        _ = session.connected(at: t0)
        _ = session.received(.authOK(haVersion: nil), at: t0)
        #expect(session.received(.result(result(id: 2, success: false)), at: t0).isEmpty, "registry needs admin; fine")
        #expect(session.received(.result(result(id: 4, success: false)), at: t0)
                == [.close(reason: "HA refused subscribe_events")])
    }

    @Test func theTokenNeverShowsInDescriptions() {
        let session = liveSession()
        #expect(!"\(session)".contains(token))
        #expect(!String(reflecting: session.phase).contains(token))
    }
}
