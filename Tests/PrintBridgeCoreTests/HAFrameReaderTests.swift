import Testing
@testable import PrintBridgeCore

/// HA's writer joins whatever it has queued into one JSON array when the
/// client asked for `coalesce_messages` (websocket_api/http.py, `_writer`):
/// a pong or a result can sit behind events. Every message reaches the session.
@Suite struct HAFrameReaderTests {
    static func event(_ entity: String, _ state: String, id: Int = 5) -> String {
        #"{"id":\#(id),"type":"event","event":{"event_type":"state_changed","data":{"entity_id":"\#(entity)","old_state":{"entity_id":"\#(entity)","state":"idle"},"new_state":{"entity_id":"\#(entity)","state":"\#(state)","attributes":{},"last_changed":"2026-11-20T09:00:00+00:00","last_updated":"2026-11-20T09:00:00+00:00","context":{"id":"01J"}}},"origin":"LOCAL","time_fired":"2026-11-20T09:00:00+00:00","context":{"id":"01J"}}}"#
    }

    func read(_ reader: inout HAFrameReader, _ text: String) throws -> [HAMessage] {
        try Array(text.utf8).withUnsafeBytes { try reader.messages(in: $0) }
    }

    @Test func aPongBehindAnEventReachesTheSession() throws {
        var reader = HAFrameReader()
        var session = HASession(accessToken: "t")
        _ = session.start(at: EpochTime(seconds: 0))
        _ = session.connected(at: EpochTime(seconds: 0))
        _ = session.received(.authOK(haVersion: nil), at: EpochTime(seconds: 0))
        _ = session.received(.result(try HAResult(members: ["id": .number(4), "success": .bool(true)])), at: EpochTime(seconds: 0))
        let ping = session.tick(at: EpochTime(seconds: 30))
        guard case .send(let text) = ping.first, text.contains("\"ping\""),
            let id = (try? JSONParser.parse(text))?["id"]?.intValue
        else {
            Issue.record("no ping: \(ping)")
            return
        }
        // HA answers with the pong batched behind a household event.
        let frame = "[" + Self.event("light.kitchen", "on") + #",{"id":\#(id),"type":"pong"}]"#
        let messages = try read(&reader, frame)
        #expect(messages.count == 2 && messages.last == .pong(id: id), "the household event, then the pong: \(messages)")
        #expect(messages.flatMap { reader.inputs(from: $0) }.isEmpty, "nothing for the printers")
        for message in messages { _ = session.received(message, at: EpochTime(seconds: 31)) }
        #expect(session.tick(at: EpochTime(seconds: 45)).isEmpty, "the pong counted: no reconnect")
        #expect(!session.takeNotices().contains(.pongMissing))
    }

    @Test func aResultBeforeAnEventIsHandledOnceAndTheEventToo() throws {
        var reader = HAFrameReader()
        let snapshot = #"{"id":3,"type":"result","success":true,"result":[{"entity_id":"sensor.x1c_print_status","state":"idle","attributes":{},"last_changed":"2026-11-20T08:00:00+00:00","last_updated":"2026-11-20T08:00:00+00:00"}]}"#
        let frame = "[" + snapshot + "," + Self.event("sensor.x1c_print_status", "running") + "]"
        let messages = try read(&reader, frame)
        let inputs = messages.flatMap { reader.inputs(from: $0) }
        #expect(inputs.count == 2)
        guard case .snapshot(let states) = inputs.first?.kind, case .entity(let match, let new, let old) = inputs.last?.kind
        else {
            Issue.record("unexpected inputs \(inputs)")
            return
        }
        #expect(states.map(\.match) == [EntityMatch(prefix: "x1c", field: .status)])
        #expect(match == EntityMatch(prefix: "x1c", field: .status))
        #expect(new.state == "running")
        #expect(old?.state == "idle", "parsed once, old_state included")
        #expect(reader.statistics.frames == 1)
    }

    /// An older HA's `state_changed` (or a recording's) about another
    /// entity is parsed like any frame and gives the printers nothing.
    @Test func householdEventsGiveNothingAndPrinterOnesAnEntity() throws {
        var reader = HAFrameReader()
        let household = try read(&reader, Self.event("light.kitchen", "on"))
        #expect(household.count == 1 && household.flatMap { reader.inputs(from: $0) }.isEmpty)
        let printer = try read(&reader, Self.event("sensor.x1c_print_status", "running"))
        #expect(printer.flatMap { reader.inputs(from: $0) }.count == 1)
        #expect(reader.statistics.frames == 2)
    }

    @Test func theRegistryTeachesTheReadersOwnMatcher() throws {
        var reader = HAFrameReader()
        let registry = #"{"id":2,"type":"result","success":true,"result":{"entity_categories":{},"entities":[{"ei":"sensor.x1c_druckstatus","pl":"bambu_lab","tk":"print_status","di":"dev1"},{"ei":"sensor.x1c_druckfortschritt","pl":"bambu_lab","tk":"print_progress","di":"dev1"}]}}"#
        let messages = try read(&reader, registry)
        #expect(messages.flatMap { reader.inputs(from: $0) }.isEmpty)
        let event = try read(&reader, Self.event("sensor.x1c_druckstatus", "running"))
        guard case .entity(let match, _, _) = event.flatMap({ reader.inputs(from: $0) }).first?.kind else {
            Issue.record("the localised status entity was not matched")
            return
        }
        #expect(match == EntityMatch(prefix: "x1c", field: .status))
    }

    @Test func aBambuLabEventNamesItsPrinterThroughTheRegistry() throws {
        var reader = HAFrameReader()
        let registry = #"{"id":2,"type":"result","success":true,"result":{"entities":[{"ei":"sensor.h2d_0948ad_print_status","pl":"bambu_lab","tk":"print_status","di":"dev9"},{"ei":"sensor.h2d_0948ad_print_progress","pl":"bambu_lab","tk":"print_progress","di":"dev9"}]}}"#
        _ = try read(&reader, registry).map { reader.inputs(from: $0) }
        // coordinator.py's PublishDeviceTriggerEvent: {device_id, name, type}.
        let bus = #"{"id":5,"type":"event","event":{"event_type":"bambu_lab_event","data":{"device_id":"dev9","name":"","type":"event_print_canceled"},"origin":"LOCAL","time_fired":"2026-11-20T09:00:00+00:00","context":{"id":"01J"}}}"#
        let messages = try read(&reader, bus)
        let inputs = messages.flatMap { reader.inputs(from: $0) }
        #expect(inputs.map(\.kind) == [.printerEvent(prefix: "h2d_0948ad", type: "event_print_canceled")])
        let stranger = bus.replacingAll("dev9", with: "dev1")
        #expect(try read(&reader, stranger).flatMap { reader.inputs(from: $0) } == [])
    }
}

/// ha-bambulab's entities as its definitions.py and translations/en.json make them.
@Suite struct HABambulabEntityTests {
    @Test func dualNozzlePrintersAreOnePrinter() {
        let matcher = EntityMatcher()
        #expect(matcher.match(entityID: "sensor.h2d_0948ad_nozzle_temperature") == EntityMatch(prefix: "h2d_0948ad", field: .nozzleTemp))
        for entity in [
            "sensor.h2d_0948ad_left_nozzle_temperature", "sensor.h2d_0948ad_right_nozzle_temperature",
            "sensor.h2d_0948ad_nozzle_target_temperature", "sensor.h2d_0948ad_bed_target_temperature",
            "sensor.h2d_0948ad_left_nozzle_target_temperature", "sensor.h2d_0948ad_right_nozzle_target_temperature",
        ] {
            #expect(matcher.match(entityID: entity) == nil, "\(entity)")
        }
    }

    @Test func taskNameIsTheSubtaskEntity() {
        // ha-bambulab's `subtask_name` is named "Task name": sensor.<p>_task_name.
        var matcher = EntityMatcher()
        #expect(matcher.match(entityID: "sensor.x1c_1_task_name") == EntityMatch(prefix: "x1c_1", field: .taskName))
        matcher.applyRegistry([
            .init(entityID: "sensor.x1c_1_aufgabenname", platform: "bambu_lab", translationKey: "subtask_name", deviceID: "d"),
            .init(entityID: "sensor.x1c_1_druckstatus", platform: "bambu_lab", translationKey: "print_status", deviceID: "d"),
        ])
        #expect(matcher.match(entityID: "sensor.x1c_1_aufgabenname") == EntityMatch(prefix: "x1c_1", field: .taskName))
    }

    @Test func otherIntegrationsTranslationKeysAreNotPrinters() {
        var matcher = EntityMatcher()
        matcher.applyRegistry([
            .init(entityID: "sensor.washer_remaining_time", platform: "miele", translationKey: "remaining_time", deviceID: "w"),
            .init(entityID: "sensor.k1_fortschritt", platform: "creality", translationKey: "print_progress", deviceID: "k"),
            .init(entityID: "sensor.k1_status", platform: "creality", translationKey: "print_status", deviceID: "k"),
        ])
        #expect(matcher.registryMatchCount == 0)
        #expect(matcher.match(entityID: "sensor.k1_fortschritt") == nil)
        // An English id of another integration that ends like a printer field is not one either…
        #expect(matcher.match(entityID: "sensor.washer_remaining_time") == nil)
        // …while an entity the registry does not name still matches by suffix.
        #expect(matcher.match(entityID: "sensor.dryer_remaining_time") == EntityMatch(prefix: "dryer", field: .remainingTime))
    }

    @Test func thePrefixIsRightWithOnlyStatusAndProgressEnabled() {
        var matcher = EntityMatcher()
        matcher.applyRegistry([
            .init(entityID: "sensor.x1c_00m09a350100123_print_status", platform: "bambu_lab", translationKey: "print_status", deviceID: "d"),
            .init(entityID: "sensor.x1c_00m09a350100123_print_progress", platform: "bambu_lab", translationKey: "print_progress", deviceID: "d"),
        ])
        #expect(matcher.match(entityID: "sensor.x1c_00m09a350100123_print_status")?.prefix == "x1c_00m09a350100123")
        #expect(matcher.match(entityID: "sensor.x1c_00m09a350100123_print_progress")?.prefix == "x1c_00m09a350100123")
        #expect(matcher.printer(deviceID: "d") == "x1c_00m09a350100123")
    }

    @Test func aLocalisedFriendlyNameShowsOnlyThePrinter() {
        var cache = PrinterCache()
        let status = EntityMatch(prefix: "x1c", field: .status)
        _ = cache.apply(status, state: HA.state("sensor.x1c_druckstatus", "idle", attributes: ["friendly_name": "X1C Druckstatus"]))
        _ = cache.apply(
            EntityMatch(prefix: "x1c", field: .progress),
            state: HA.state("sensor.x1c_druckfortschritt", "3", attributes: ["friendly_name": "X1C Druckfortschritt"]))
        #expect(cache["x1c"]?.displayName == "X1C")
        var english = PrinterCache()
        _ = english.apply(status, state: HA.state("sensor.x1c_print_status", "idle", attributes: ["friendly_name": "Workshop X1C Print status"]))
        _ = english.apply(
            EntityMatch(prefix: "x1c", field: .progress),
            state: HA.state("sensor.x1c_print_progress", "3", attributes: ["friendly_name": "Workshop X1C Print progress"]))
        #expect(english["x1c"]?.displayName == "Workshop X1C")
    }
}

/// HA coalesces what it has queued into one array when it is busy: every
/// element is read, in order, and what the printers see is what the same
/// messages in frames of their own give.
@Suite struct CoalescedFrameTests {
    let printer = "sensor.x1c_00m09a350100123_print_status"

    func read(_ frame: String) throws -> (messages: [HAMessage], reader: HAFrameReader) {
        var reader = HAFrameReader()
        let messages = try Array(frame.utf8).withUnsafeBytes { try reader.messages(in: $0) }
        return (messages, reader)
    }

    @Test func everyElementIsReadInOrder() throws {
        // Strings holding brackets, braces, commas and escaped quotes.
        let tricky = HAFrameReaderTests.event("sensor.odd", #"a \"quoted\" ]},{ [value\\"#)
        let frame = "[" + HAFrameReaderTests.event("light.kitchen", "on") + ",\n" + tricky + #",{"id":9,"type":"pong"}, "#
            + HAFrameReaderTests.event("switch.fan", "off") + ", " + HAFrameReaderTests.event(printer, "running") + "]"
        var (messages, reader) = try read(frame)
        #expect(messages.count == 5)
        #expect(messages[2] == .pong(id: 9))
        let inputs = messages.flatMap { reader.inputs(from: $0) }
        #expect(inputs.count == 1, "the printer's event only")
        #expect(reader.statistics.messages == 5)
    }

    /// The registry teaches the matcher when the frame's inputs are taken,
    /// so an event behind it in the same array is a printer's.
    @Test func eventsBehindARegistryResultInTheSameArrayAreRead() throws {
        let registry = #"{"id":2,"type":"result","success":true,"result":{"entity_categories":{},"entities":[{"ei":"sensor.x1c_druckstatus","pl":"bambu_lab","tk":"print_status","di":"dev1"}]}}"#
        let frame = "[" + HAFrameReaderTests.event("light.a", "on") + "," + registry + ","
            + HAFrameReaderTests.event("sensor.x1c_druckstatus", "running") + "]"
        var (messages, reader) = try read(frame)
        #expect(messages.count == 3)
        let inputs = messages.flatMap { reader.inputs(from: $0) }
        #expect(inputs.count == 1, "the printer's status, known from the registry just before it")
    }

    @Test func aBrokenElementFailsTheFrame() throws {
        let broken = "[" + HAFrameReaderTests.event("light.a", "on") + #",{"id":5,"type":"event","event":{"event_type":"state_changed","data":{"entity_id":"\#(printer)",]}]"#
        #expect(throws: HAMessageError.self) { try read(broken) }
    }
}

/// A key twice: the first value counts, the second is still checked.
@Suite struct DuplicateKeyTests {
    @Test func theParserKeepsTheFirstOfTwoKeysAndStillChecksTheSecond() throws {
        #expect(try JSONParser.parse(#"{"a":1,"a":2}"#)["a"] == .number(1))
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(#"{"a":1,"a":[}"#) }
    }
}
