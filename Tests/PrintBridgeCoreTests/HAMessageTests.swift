import Testing
@testable import PrintBridgeCore

@Suite struct HAMessageTests {
    func decode(_ text: String) throws -> [HAMessage] {
        var reader = HAFrameReader()
        return try Array(text.utf8).withUnsafeBytes { try reader.messages(in: $0) }
    }

    @Test func authAndPong() throws {
        #expect(try decode(#"{"type":"auth_required","ha_version":"2026.11.2"}"#) == [.authRequired(haVersion: "2026.11.2")])
        #expect(try decode(#"{"type":"auth_ok","ha_version":"2026.11.2"}"#) == [.authOK(haVersion: "2026.11.2")])
        #expect(try decode(#"{"type":"auth_invalid","message":"Invalid access token or password"}"#)
                == [.authInvalid(message: "Invalid access token or password")])
        #expect(try decode(#"{"id":7,"type":"pong"}"#) == [.pong(id: 7)])
        #expect(try decode(#"{"id":7,"type":"something_new"}"#) == [.other(type: "something_new")])
    }

    @Test func stateChangedEvent() throws {
        let text = #"""
            {"id":2,"type":"event","event":{"event_type":"state_changed","data":{"entity_id":"sensor.x_print_progress","old_state":{"entity_id":"sensor.x_print_progress","state":"41"},"new_state":{"entity_id":"sensor.x_print_progress","state":"42","attributes":{"unit_of_measurement":"%"},"last_changed":"2026-11-20T09:00:00.000000+00:00","last_updated":"2026-11-20T09:00:01.000000+00:00","context":{"id":"01J"}}},"origin":"LOCAL","time_fired":"2026-11-20T09:00:01.000000+00:00"}}
            """#
        let messages = try decode(text)
        guard case .event(let id, let event) = messages.first else { Issue.record("not an event"); return }
        #expect(id == 2)
        #expect(event.eventType == "state_changed")
        #expect(event.timeFired == EpochTime(seconds: 1_795_165_201))
        #expect(event.stateChange?.entityID == "sensor.x_print_progress")
        #expect(event.stateChange?.newState?.state == "42")
        #expect(event.stateChange?.newState?.unitOfMeasurement == "%")
        #expect(event.stateChange?.oldState?.state == "41", "parsed once, old_state included")
    }

    @Test func aRemovedEntityHasNoNewState() throws {
        let messages = try decode(#"{"id":2,"type":"event","event":{"event_type":"state_changed","data":{"entity_id":"sensor.x_print_status","old_state":null,"new_state":null}}}"#)
        guard case .event(_, let event) = messages.first else { Issue.record("not an event"); return }
        #expect(event.stateChange?.newState == nil)
    }

    @Test func oddStateValuesAreReadLeniently() throws {
        let messages = try decode(#"{"id":1,"type":"result","success":true,"result":[{"entity_id":"sensor.a","state":42},{"entity_id":"sensor.b","state":null},{"entity_id":"sensor.c","state":"x"},{"state":"no id"},"junk"]}"#)
        guard case .result(let result) = messages.first, let (states, skipped) = result.states() else {
            Issue.record("not a states result"); return
        }
        #expect(states.map(\.state) == ["42", "unknown", "x"])
        #expect(skipped == 2)
    }

    @Test func coalescedArraysHoldSeveralMessages() throws {
        let messages = try decode(#"[{"id":1,"type":"pong"},{"id":2,"type":"pong"}]"#)
        #expect(messages == [.pong(id: 1), .pong(id: 2)])
    }

    @Test func registryResultsInBothFormats() throws {
        let display = try decode(#"{"id":3,"type":"result","success":true,"result":{"entity_categories":{},"entities":[{"ei":"sensor.x1c_druckstatus","di":"d1","pl":"bambu_lab","tk":"print_status"}]}}"#)
        guard case .result(let short) = display.first else { Issue.record("not a result"); return }
        #expect(short.registryEntries() == [EntityRegistryEntry(entityID: "sensor.x1c_druckstatus", platform: "bambu_lab", translationKey: "print_status", deviceID: "d1")])
        let list = try decode(#"{"id":3,"type":"result","success":true,"result":[{"entity_id":"sensor.x","platform":"bambu_lab","translation_key":"print_progress","device_id":"d1"}]}"#)
        guard case .result(let long) = list.first else { Issue.record("not a result"); return }
        #expect(long.registryEntries()?.first?.translationKey == "print_progress")
        #expect(long.states() == nil)
    }

    @Test(arguments: [
        (#"{"id":2}"#, "no \"type\""), (#"{"type":"event"}"#, "no \"event\""),
        (#"{"type":"event","event":{"event_type":"state_changed"}}"#, "no \"data\""),
        (#"{"type":"event","event":{"event_type":"state_changed","data":{"new_state":{}}}}"#, "no entity_id"),
        (#"{"type":"result"}"#, "no boolean \"success\""), ("42", "not a JSON object"),
        (#"{"type":"event","event":{"event_type":"state_changed","data":{"entity_id":"a","new_state":"on"}}}"#, "not an object"),
    ])
    func unexpectedShapesAreClearErrors(text: String, reason: String) {
        #expect {
            _ = try decode(text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
