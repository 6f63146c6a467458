import Testing
@testable import PrintBridgeCore

@Suite struct HASessionTests {
    let token = "secret-long-lived-token"
    let t0 = EpochTime(seconds: 1_000_000)

    func sent(_ commands: [HASession.Command]) -> [String] {
        commands.compactMap { if case .send(let text) = $0 { return text } else { return nil } }
    }

    func json(_ text: String) -> JSONValue { (try? JSONParser.parse(text)) ?? .null }

    static let printerEntities = ["sensor.x1c_print_progress", "sensor.x1c_print_status"]

    /// A session brought to `live` at t0: the registry answered, the
    /// printers' entities subscribed (id 6, after ha-bambulab's bus events'
    /// 5), its first event in.
    func liveSession() -> HASession {
        var session = HASession(accessToken: token)
        _ = session.start(at: t0)
        _ = session.connected(at: t0)
        _ = session.received(.authRequired(haVersion: "2026.11.2"), at: t0)
        _ = session.received(.authOK(haVersion: "2026.11.2"), at: t0)
        _ = session.received(.result(result(id: 4, success: true)), at: t0)
        _ = session.watch(Self.printerEntities, at: t0)
        _ = session.received(.result(result(id: 6, success: true)), at: t0)
        _ = session.received(.entityChanges(id: 6, HAEntityChanges()), at: t0)
        return session
    }

    func result(id: Int, success: Bool, code: String = "unauthorized") -> HAResult {
        let text = success ? #"{"id":\#(id),"type":"result","success":true,"result":null}"#
            : #"{"id":\#(id),"type":"result","success":false,"error":{"code":"\#(code)","message":"Refused"}}"#
        guard case .result(let result) = try! HAMessage(json: json(text)) else { fatalError() }
        return result
    }

    /// What the commands send: each request's type and id.
    func requests(_ commands: [HASession.Command]) -> [(type: String, id: Int)] {
        sent(commands).map(json).map { ($0["type"]?.stringValue ?? "", $0["id"]?.intValue ?? 0) }
    }

    @Test func authThenRegistryEventsRegistryAndOnlyThePrintersEntities() {
        var session = HASession(accessToken: token)
        #expect(session.start(at: t0) == [.connect])
        #expect(session.connected(at: t0).isEmpty, "HA speaks first")
        let auth = sent(session.received(.authRequired(haVersion: nil), at: t0))
        #expect(auth.map(json) == [.object(["type": "auth", "access_token": .string(token)])])
        let requests = sent(session.received(.authOK(haVersion: "2026.11.2"), at: t0)).map(json)
        // The registry's change events before the registry: no change falls between them.
        #expect(requests.compactMap { $0["type"]?.stringValue } == [
            "supported_features", "subscribe_events", "subscribe_events", "config/entity_registry/list_for_display",
        ])
        #expect(requests.compactMap { $0["id"]?.intValue } == [1, 2, 3, 4])
        #expect(requests[0]["features"]?["coalesce_messages"] == .number(1))
        #expect(requests[1]["event_type"] == .string("entity_registry_updated"))
        #expect(requests[2]["event_type"] == .string("device_registry_updated"))
        // ha-bambulab's bus events once the registry answers (HA allows them to admins only).
        let bambu = sent(session.received(.result(result(id: 4, success: true)), at: t0)).map(json)
        #expect(bambu.count == 1 && bambu.first?["id"] == .number(5) && bambu.first?["event_type"] == .string("bambu_lab_event"))
        #expect(session.wantsEntityList, "the link's matcher has read the registry: it says what to watch")
        let subscribe = sent(session.watch(Self.printerEntities, at: t0)).map(json)
        #expect(subscribe == [.object([
            "id": .number(6), "type": .string("subscribe_entities"),
            "entity_ids": .array(Self.printerEntities.map { .string($0) }),
        ])])
        #expect(!session.wantsEntityList)
        #expect(session.takeNotices().contains(.watching(entities: 2)))
        // HA answers, then sends every entity asked for in one event: live with that.
        _ = session.received(.result(result(id: 6, success: true)), at: t0)
        #expect(session.phase == .synchronising)
        _ = session.received(.entityChanges(id: 6, HAEntityChanges()), at: t0)
        #expect(session.phase == .live)
        #expect(session.takeNotices().contains(.live))
        #expect(session.watching == .printerEntities)
    }

    /// HA reads an empty entity_ids as every entity: with no printer in
    /// the registry nothing is asked for, and the session is live.
    @Test func noPrinterMeansNoSubscriptionNotTheWholeHouse() {
        var session = HASession(accessToken: token)
        _ = session.start(at: t0)
        _ = session.connected(at: t0)
        _ = session.received(.authOK(haVersion: "2024.3.3"), at: t0)
        _ = session.received(.result(result(id: 4, success: true)), at: t0)
        #expect(session.watch([], at: t0).isEmpty)
        #expect(session.phase == .live)
        #expect(session.takeNotices().contains(.watching(entities: 0)))
    }

    /// A registry change event asks for the registry again, 0.5 s after the
    /// last (at most 2 s after the first); different entities are
    /// subscribed anew (the old subscription ended first), the same ones not.
    @Test func registryChangesResubscribeWhenThePrintersEntitiesChange() {
        var session = liveSession()
        let registryEvent = HAMessage.event(
            id: 2, HAEvent(eventType: "entity_registry_updated", timeFired: t0, stateChange: nil,
                           data: ["action": "create", "entity_id": "sensor.p1s_print_status"]))
        for step in 0..<6 {
            _ = session.received(registryEvent, at: t0 + 1 + Double(step) * 0.3)
        }
        // The burst goes on past 2 s: asked for at the latest then, not later.
        #expect(session.nextDeadline == t0 + 3)
        #expect(session.tick(at: t0 + 2.9).isEmpty)
        #expect(requests(session.tick(at: t0 + 3)).map(\.type) == ["config/entity_registry/list_for_display"])
        #expect(session.nextDeadline == t0 + 30, "no second request while the first is unanswered")
        _ = session.received(.result(result(id: 7, success: true)), at: t0 + 3.1)
        #expect(sent(session.watch(Self.printerEntities, at: t0 + 3.1)).isEmpty, "the same entities: nothing to do")
        _ = session.received(registryEvent, at: t0 + 4)
        #expect(session.nextDeadline == t0 + 4.5)
        _ = session.tick(at: t0 + 4.5)
        _ = session.received(.result(result(id: 8, success: true)), at: t0 + 4.6)
        let more = Self.printerEntities + ["sensor.p1s_print_status"]
        let resubscribed = sent(session.watch(more, at: t0 + 4.6)).map(json)
        #expect(resubscribed.map { $0["type"]?.stringValue } == ["unsubscribe_events", "subscribe_entities"])
        #expect(resubscribed.first?["subscription"] == .number(6))
        #expect(resubscribed.last?["id"] == .number(10) && resubscribed.last?["entity_ids"]?.arrayValue?.count == 3)
        #expect(session.phase == .live, "still live while the new subscription starts")
        _ = session.received(.result(result(id: 9, success: true)), at: t0 + 4.7)
        _ = session.received(.result(result(id: 10, success: true)), at: t0 + 4.7)
        #expect(session.takeNotices().filter { if case .requestFailed = $0 { true } else { false } }.isEmpty)
    }

    /// An HA older than subscribe_entities (2022.4) or the registry's
    /// list_for_display (2023.3) answers unknown_command: every state change
    /// then, as before, and the notice names HA's version.
    @Test func anHAWithoutTheCommandsIsWatchedThroughEveryStateChange() {
        for unknown in ["config/entity_registry/list_for_display", "subscribe_entities"] {
            var session = HASession(accessToken: token)
            _ = session.start(at: t0)
            _ = session.connected(at: t0)
            _ = session.received(.authOK(haVersion: "2022.3.8"), at: t0)
            var commands: [HASession.Command]
            if unknown == "subscribe_entities" {
                _ = session.received(.result(result(id: 4, success: true)), at: t0)
                _ = session.watch(Self.printerEntities, at: t0)
                commands = session.received(.result(result(id: 6, success: false, code: "unknown_command")), at: t0)
            } else {
                commands = session.received(.result(result(id: 4, success: false, code: "unknown_command")), at: t0)
            }
            let next = unknown == "subscribe_entities" ? 7 : 5
            #expect(requests(commands).map(\.type) == ["get_states", "subscribe_events"], "\(unknown)")
            #expect(requests(commands).map(\.id) == [next, next + 1])
            #expect(session.watching == .everyStateChange)
            #expect(session.takeNotices().contains(
                .watchingEveryStateChange(haVersion: "2022.3.8", command: unknown, code: "unknown_command")))
            _ = session.received(.result(result(id: next + 1, success: true)), at: t0)
            #expect(session.phase == .live)
        }
    }

    @Test func withoutTheRegistryEveryStateChangeIsAskedFor() {
        var configuration = HASession.Configuration()
        configuration.readsEntityRegistry = false
        var session = HASession(accessToken: token, configuration: configuration)
        _ = session.start(at: t0)
        _ = session.connected(at: t0)
        let commands = session.received(.authOK(haVersion: nil), at: t0)
        #expect(requests(commands).map(\.type) == ["supported_features", "get_states", "subscribe_events"])
        #expect(session.takeNotices() == [.authenticated(haVersion: nil)], "chosen, not a fallback to warn of")
    }

    @Test func idsRestartAtOneOnEveryConnection() {
        var session = liveSession()
        _ = session.disconnected(at: t0 + 5, random: 0)
        _ = session.tick(at: t0 + 100)
        _ = session.connected(at: t0 + 100)
        _ = session.received(.authRequired(haVersion: nil), at: t0 + 100)
        let ids = sent(session.received(.authOK(haVersion: nil), at: t0 + 100)).compactMap { json($0)["id"]?.intValue }
        #expect(ids == [1, 2, 3, 4])
        // And the subscription is made anew on the new connection.
        _ = session.received(.result(result(id: 4, success: true)), at: t0 + 100)
        #expect(requests(session.watch(Self.printerEntities, at: t0 + 100)).map(\.id) == [6])
    }

    /// HA writes a pong behind whatever it has queued; with a backlog of
    /// events the agent reads for longer than the timeout, the pong is late
    /// but the link is plainly alive. Silence after the last event still
    /// closes it within the timeout.
    @Test func aPongLateBehindABacklogOfEventsKeepsTheLink() {
        var session = liveSession()
        _ = session.tick(at: t0 + 30)  // ping
        for second in stride(from: 31.0, through: 60.0, by: 3) {
            _ = session.received(.other(type: "event"), at: t0 + second)
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
        #expect(ping.first?["id"] == .number(7))
        _ = session.received(.pong(id: 7), at: t0 + 30.01)
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
        _ = session.watch(Self.printerEntities, at: t0 + 100)
        _ = session.received(.entityChanges(id: 6, HAEntityChanges()), at: t0 + 100)
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

    /// A refused registry (whatever the reason) leaves every state change;
    /// a refused subscription (not an unknown command) closes, and the link
    /// tries again.
    @Test func aRefusedSubscriptionClosesButARefusedRegistryFallsBack() {
        var session = HASession(accessToken: token)
        _ = session.start(at: t0)
        _ = session.connected(at: t0)
        _ = session.received(.authOK(haVersion: nil), at: t0)
        #expect(requests(session.received(.result(result(id: 4, success: false)), at: t0)).map(\.type)
                == ["get_states", "subscribe_events"])
        #expect(session.received(.result(result(id: 6, success: false)), at: t0)
                == [.close(reason: "HA refused subscribe_events")])

        var refused = HASession(accessToken: token)
        _ = refused.start(at: t0)
        _ = refused.connected(at: t0)
        _ = refused.received(.authOK(haVersion: nil), at: t0)
        _ = refused.received(.result(result(id: 4, success: true)), at: t0)
        _ = refused.watch(Self.printerEntities, at: t0)
        #expect(refused.received(.result(result(id: 6, success: false)), at: t0)
                == [.close(reason: "HA refused subscribe_entities")])
        #expect(refused.takeNotices().contains(.requestFailed(id: 6, code: "unauthorized", message: "Refused")))
    }

    @Test func theTokenNeverShowsInDescriptions() {
        let session = liveSession()
        #expect(!"\(session)".contains(token))
        #expect(!String(reflecting: session.phase).contains(token))
    }
}
