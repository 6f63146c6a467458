import Testing
@testable import PrintBridgeCore

/// `subscribe_entities`' events as HA 2024.3 writes them
/// (websocket_api/messages.py `_state_diff_event`, `_state_diff`; core.py
/// `as_compressed_state`; commands.py `_send_handle_entities_init_response`)
/// and what the frame reader makes of them: the first is the snapshot, then
/// each change is a printer entity's new state laid over the one kept.
@Suite struct HAEntityChangesTests {
    static let status = "sensor.x1c_00m09a350100123_print_status"
    static let progress = "sensor.x1c_00m09a350100123_print_progress"

    /// The subscription's first event: two printer entities (the progress's
    /// last_updated after its last_changed, so `lu` is there) and a camera.
    static let initial = #"{"id":6,"type":"event","event":{"a":{"\#(status)":{"s":"running","a":{"friendly_name":"X1C Print status","options":["idle","running"]},"c":"01HS0000000000000000000000","lc":1795674400.5},"\#(progress)":{"s":"10","a":{"unit_of_measurement":"%","friendly_name":"X1C Print progress"},"c":{"id":"01HS1","parent_id":null,"user_id":"u1"},"lc":1795674401.0,"lu":1795674402.25},"camera.x1c_00m09a350100123_camera":{"s":"idle","a":{"access_token":"x"},"c":"01HS2","lc":1795674400.0}}}}"#

    func message(_ text: String) throws -> HAMessage {
        let messages = try Array(text.utf8).withUnsafeBytes { bytes throws(HAMessageError) in
            var reader = HAFrameReader()
            return try reader.messages(in: bytes)
        }
        return try #require(messages.first)
    }

    func changes(_ text: String) throws -> HAEntityChanges {
        guard case .entityChanges(_, let changes) = try message(text) else {
            Issue.record("not an entities event: \(text)")
            return HAEntityChanges()
        }
        return changes
    }

    @Test func addedStatesReadAsStateObjects() throws {
        let read = try changes(Self.initial)
        #expect(read.added.map(\.entityID) == ["camera.x1c_00m09a350100123_camera", Self.progress, Self.status])
        let progress = try #require(read.added.first { $0.entityID == Self.progress })
        #expect(progress.state == "10" && progress.unitOfMeasurement == "%")
        #expect(progress.lastChanged == EpochTime(seconds: 1_795_674_401.0))
        #expect(progress.lastUpdated == EpochTime(seconds: 1_795_674_402.25), "lu when it differs")
        let status = try #require(read.added.first { $0.entityID == Self.status })
        #expect(status.lastUpdated == status.lastChanged, "no lu: the same as lc")
        #expect(try message(Self.initial).time == EpochTime(seconds: 1_795_674_402.25))
    }

    @Test func aChangeIsLaidOverTheKeptState() throws {
        let old = HAState(
            entityID: Self.progress, state: "10", attributes: ["unit_of_measurement": "%", "friendly_name": "P", "gone": 1],
            lastChanged: EpochTime(seconds: 1), lastUpdated: EpochTime(seconds: 2))
        // A new state: lc moves both times; one attribute changed, one removed.
        let stateChange = try changes(#"{"type":"event","event":{"c":{"\#(Self.progress)":{"+":{"s":"25","lc":1795674500.5,"c":"01HS9","a":{"friendly_name":"X1C Print progress"}},"-":{"a":["gone"]}}}},"id":6}"#)
        let diff = try #require(stateChange.changed.first)
        let new = diff.applied(to: old)
        #expect(new.state == "25")
        #expect(new.lastChanged == EpochTime(seconds: 1_795_674_500.5) && new.lastUpdated == new.lastChanged)
        #expect(new.attributes == ["unit_of_measurement": "%", "friendly_name": "X1C Print progress"])
        // Only an attribute: lu alone, the state and last_changed kept.
        let attributeOnly = try changes(#"{"type":"event","event":{"c":{"\#(Self.progress)":{"+":{"lu":1795674600.0,"a":{"note":"x"}}}}},"id":6}"#)
        let updated = try #require(attributeOnly.changed.first).applied(to: new)
        #expect(updated.state == "25" && updated.lastChanged == new.lastChanged)
        #expect(updated.lastUpdated == EpochTime(seconds: 1_795_674_600) && updated.attributes["note"] == "x")
        let removed = try changes(#"{"type":"event","event":{"r":["\#(Self.progress)"]},"id":6}"#)
        #expect(removed.removed == [Self.progress] && removed.added.isEmpty && removed.changed.isEmpty)
    }

    @Test func oddEntriesAreSkippedAndBadShapesRefused() throws {
        let odd = try changes(#"{"type":"event","event":{"a":{"sensor.a":{"s":"1","lc":1.0},"sensor.b":7,"":{"s":"x"}},"c":{"sensor.c":{"+":[]}},"r":["sensor.d",3]},"id":6}"#)
        #expect(odd.added.map(\.entityID) == ["sensor.a"])
        #expect(odd.removed == ["sensor.d"])
        #expect(odd.skipped == 4)
        #expect(throws: HAMessageError.self) { try self.message(#"{"type":"event","event":{"a":[]},"id":6}"#) }
        #expect(throws: HAMessageError.self) { try self.message(#"{"type":"event","event":{"r":{}},"id":6}"#) }
        // A bus event is still a bus event.
        guard case .event = try message(#"{"id":5,"type":"event","event":{"event_type":"entity_registry_updated","data":{"action":"create","entity_id":"sensor.a"},"time_fired":"2026-11-20T09:00:00+00:00"}}"#)
        else {
            Issue.record("a registry event read as entity changes")
            return
        }
    }

    @Test func theFirstEventIsTheSnapshotThenChangesCarryTheirOldState() throws {
        var reader = HAFrameReader()
        _ = reader.inputs(from: .authOK(haVersion: "2024.3.3"))
        let snapshot = reader.inputs(from: try message(Self.initial))
        guard case .snapshot(let matched) = snapshot.first?.kind else {
            Issue.record("no snapshot: \(snapshot)")
            return
        }
        #expect(matched.map(\.match.field) == [.progress, .status], "the camera is no field")
        #expect(snapshot.first?.time == EpochTime(seconds: 1_795_674_402.25))
        #expect(reader.matcher.cameras(printer: "x1c_00m09a350100123") == ["camera.x1c_00m09a350100123_camera"])

        let paused = reader.inputs(from: try message(#"{"type":"event","event":{"c":{"\#(Self.status)":{"+":{"s":"pause","lc":1795674700.0}}}},"id":6}"#))
        guard case .entity(let match, let new, let old) = paused.first?.kind else {
            Issue.record("no entity input: \(paused)")
            return
        }
        #expect(match.field == .status && new.state == "pause" && old?.state == "running")
        #expect(new.friendlyName == "X1C Print status", "the attributes kept")
        #expect(paused.first?.time == EpochTime(seconds: 1_795_674_700))

        // Removed, then changed: the change has nothing to lie over.
        #expect(reader.inputs(from: try message(#"{"type":"event","event":{"r":["\#(Self.status)"]},"id":6}"#)).isEmpty)
        let before = reader.statistics.malformedStates
        #expect(reader.inputs(from: try message(#"{"type":"event","event":{"c":{"\#(Self.status)":{"+":{"s":"running","lc":1795674800.0}}}},"id":6}"#)).isEmpty)
        #expect(reader.statistics.malformedStates == before + 1)
        // Added back: a state_changed with no old state.
        let added = reader.inputs(from: try message(#"{"type":"event","event":{"a":{"\#(Self.status)":{"s":"running","a":{},"c":"01","lc":1795674900.0}}},"id":6}"#))
        guard case .entity(_, let back, let none) = added.first?.kind else {
            Issue.record("no entity input: \(added)")
            return
        }
        #expect(back.state == "running" && none == nil)

        // A new subscription (a resubscription, or the next connection's):
        // its first event is a snapshot again.
        #expect(reader.inputs(from: try message("{\"id\":9" + Self.initial.dropFirst(#"{"id":6"#.count)))
            .contains { if case .snapshot = $0.kind { true } else { false } })
        _ = reader.inputs(from: .authOK(haVersion: nil))
        #expect(reader.inputs(from: try message(Self.initial))
            .contains { if case .snapshot = $0.kind { true } else { false } }, "ids start again on a new connection")
    }

    /// The ids asked for: the registry's printer entities, its buttons and
    /// cameras, and those named after a known printer.
    @Test func theWatchedEntitiesAreThePrintersAndTheirCamerasAndButtons() {
        var matcher = EntityMatcher()
        let device = "84f90bf32182c78f6a2efcab15cc91be"
        matcher.applyRegistry([
            EntityRegistryEntry(entityID: Self.status, platform: "bambu_lab", translationKey: "print_status", deviceID: device),
            EntityRegistryEntry(entityID: "sensor.x1c_00m09a350100123_druckfortschritt", platform: "bambu_lab",
                                translationKey: "print_progress", deviceID: device),
            EntityRegistryEntry(entityID: "button.x1c_00m09a350100123_pause_printing", platform: "bambu_lab",
                                translationKey: "pause", deviceID: device),
            EntityRegistryEntry(entityID: "sensor.x1c_00m09a350100123_ams_1_tray_1", platform: "bambu_lab",
                                translationKey: "tray", deviceID: device),
            EntityRegistryEntry(entityID: "sensor.washer_remaining_time", platform: "miele", translationKey: nil, deviceID: "w"),
            EntityRegistryEntry(entityID: "light.kitchen", platform: "hue", translationKey: nil, deviceID: "h"),
        ])
        let watched = matcher.watchedEntityIDs
        #expect(watched.contains(Self.status) && watched.contains("sensor.x1c_00m09a350100123_druckfortschritt"))
        #expect(watched.contains("button.x1c_00m09a350100123_pause_printing"))
        #expect(watched.contains("camera.x1c_00m09a350100123_camera"), "named after the printer, not yet seen")
        #expect(watched.contains("button.x1c_00m09a350100123_resume_printing"), "named after the printer")
        #expect(!watched.contains("sensor.x1c_00m09a350100123_ams_1_tray_1"), "the printer's, but read by nothing")
        #expect(!watched.contains("sensor.washer_remaining_time") && !watched.contains("light.kitchen"))
        #expect(watched == watched.sorted())
        #expect(EntityMatcher().watchedEntityIDs.isEmpty, "no printer: nothing (HA would read [] as everything)")
        // The printer removed from HA: nothing of it is asked for, by name neither.
        matcher.applyRegistry([EntityRegistryEntry(entityID: "light.kitchen", platform: "hue", translationKey: nil, deviceID: "h")])
        #expect(matcher.watchedEntityIDs.isEmpty, "\(matcher.watchedEntityIDs)")
    }
}
