import Testing
@testable import PrintBridgeCore

/// The generic path asks a printer's integration (its `PrinterProfile`) for
/// everything that is the integration's own: an integration nobody has
/// heard of, with its own bus events, cancel code, error notation and
/// error entity, works without a line outside its profile.
@Suite struct IntegrationSeamTests {
    /// A made-up integration: `sensor.<device>_acme_state`, bus events
    /// `acme_event` {device, what}, cancel code 7, codes written "E<n>".
    static let acme = PrinterProfile(
        name: "acme", title: "Acme (made up)",
        entities: EntitySuffixMap(
            suffixes: [.status: ["_acme_state"], .progress: ["_acme_progress"], .error: ["_acme_error"]],
            platforms: ["acme"]),
        statuses: ["busy": .running, "ready": .idle, "broken": .failed],
        busEvents: PrinterBusEvents(
            eventType: "acme_event", deviceMember: "device", kindMember: "what",
            meanings: ["job_failed": .failed, "job_stopped": .cancelled]),
        cancelCode: 7, errorNotation: { "E\($0)" },
        readPrintError: { state in
            guard let code = Int(state.state) else { return .noInformation }
            return code == 0 ? .cleared : .error(code: code, text: "Acme error \(code)")
        })

    @Test func theSessionSubscribesToEveryIntegrationsBusEvents() throws {
        #expect(PrinterProfile.builtInBusEventTypes == ["bambu_lab_event"])
        let matcher = EntityMatcher(profiles: PrinterProfile.builtIn + [Self.acme])
        #expect(matcher.busEventTypes == ["acme_event", "bambu_lab_event", "printbridge_notify"], "and automations' alerts (issue 53)")
        var session = HASession(accessToken: "t", busEventTypes: matcher.busEventTypes)
        let t0 = EpochTime(seconds: 0)
        _ = session.start(at: t0)
        _ = session.connected(at: t0)
        _ = session.received(.authOK(haVersion: nil), at: t0)
        let registryAnswered = session.received(
            .result(try HAResult(members: ["id": .number(4), "success": .bool(true)])), at: t0)
        let subscriptions = registryAnswered.compactMap { command -> JSONValue? in
            guard case .send(let text) = command else { return nil }
            return try? JSONParser.parse(text)
        }
        #expect(subscriptions.compactMap { $0["event_type"]?.stringValue } == ["acme_event", "bambu_lab_event", "printbridge_notify"])
        #expect(subscriptions.compactMap { $0["id"]?.intValue } == [5, 6, 7])
    }

    @Test func anIntegrationsBusEventNamesItsPrinterThroughTheRegistry() throws {
        var reader = HAFrameReader(matcher: EntityMatcher(profiles: [Self.acme]))
        _ = reader.inputs(from: .result(try HAResult(members: [
            "id": .number(2), "success": .bool(true),
            "result": .object(["entities": .array([.object(["ei": "sensor.shop_acme_state", "pl": "acme", "di": "d1"])])]),
        ])))
        func bus(_ type: String, _ data: [String: JSONValue]) -> HAMessage {
            .event(id: 5, HAEvent(eventType: type, timeFired: EpochTime(seconds: 1), stateChange: nil, data: data))
        }
        #expect(reader.inputs(from: bus("acme_event", ["device": "d1", "what": "job_stopped"])).map(\.kind)
            == [.printerEvent(prefix: "shop", type: "job_stopped")])
        // Another integration's event type, or its own without the device, is nothing here.
        #expect(reader.inputs(from: bus("bambu_lab_event", ["device_id": "d1", "type": "event_print_canceled"])).isEmpty)
        #expect(reader.inputs(from: bus("acme_event", ["what": "job_stopped"])).isEmpty)
    }

    @Test func aCancelAndAnErrorAreTheIntegrationsOwn() {
        var h = PipelineHarness(devices: [device()])
        h.reader = HAFrameReader(matcher: EntityMatcher(profiles: [Self.acme]))
        h.set("shop", "_acme_state", "ready")
        h.set("shop", "_acme_state", "busy", after: 1)
        h.wait(h.pipeline.planner.configuration.startSettle)
        // Its cancel event counts as its cancel code: the failure is a cancel.
        h.busEvent("shop", "job_stopped", after: 10)
        #expect(h.pipeline.cache["shop"]?.errorCode == 7)
        #expect(h.set("shop", "_acme_state", "broken", after: 1).alerts.events == [.cancelled])
        // A failure with another code: told at once (no cancel to wait for),
        // its code in the history as the integration writes it.
        h.set("shop", "_acme_state", "busy", after: 60)
        h.wait(h.pipeline.planner.configuration.startSettle)
        h.set("shop", "_acme_error", "42", after: 10)
        #expect(h.set("shop", "_acme_state", "broken", after: 1).alerts.events == [.failed])
        #expect(h.prints.map(\.reason) == ["cancelled by the user", "print error E42"])
        // A bus event the integration does not fire means nothing.
        #expect(h.busEvent("shop", "event_print_failed").isEmpty)
    }

    /// ha-bambulab's spools (its per-spool attributes, its "Active tray")
    /// and its rule that a weight older than the print's file is the last
    /// print's are its own (`BambuLab+Spools.swift`): another integration's
    /// entities with the same attributes and times read as that
    /// integration says, here as plain totals.
    @Test func spoolsAndTheirRulesAreTheIntegrationsOwn() {
        let bySpool: [String: JSONValue] = ["AMS 1 Tray 1": .number(30), "AMS 1 Tray 3": .number(12.5)]
        let tray: [String: JSONValue] = ["type": "PLA", "color": "#ffffffff", "ams_index": .number(0), "tray_index": .number(2)]
        func read(_ profile: PrinterProfile) -> PrinterSnapshot? {
            var cache = PrinterCache()
            func apply(_ field: PrinterField, _ value: String, at seconds: Double, _ attributes: [String: JSONValue] = [:]) {
                let time = EpochTime(seconds: seconds)
                _ = cache.apply(
                    EntityMatch(prefix: "p", field: field, profile: profile),
                    state: HAState(entityID: "sensor.p_x", state: value, attributes: attributes, lastChanged: time, lastUpdated: time),
                    at: time)
            }
            apply(.status, "idle", at: 0)
            apply(.taskName, "one.3mf", at: 10)
            apply(.materialWeight, "42.5", at: 20, bySpool)
            apply(.activeSpool, "Bambu PLA Basic", at: 20, tray)
            apply(.status, profile == .bambuLab ? "running" : "busy", at: 30)
            // Another file, over a minute after the weight last changed.
            apply(.taskName, "two.3mf", at: 100)
            return cache["p"]
        }
        let bambu = read(.bambuLab)
        #expect(bambu?.material.gramsBySpool == ["AMS 1 Tray 1": 30, "AMS 1 Tray 3": 12.5])
        #expect(bambu?.material.activeSpool == Spool(name: "AMS 1 Tray 3", material: Material(type: "PLA", color: "#FFFFFFFF")))
        #expect(bambu?.currentPrint().material.grams == nil, "pybambu did not read the new file's weight")

        var acme = Self.acme
        acme.entities = EntitySuffixMap(suffixes: [.status: ["_acme_state"], .materialWeight: ["_acme_grams"]])
        let other = read(acme)
        #expect(other?.material.grams == 42.5)
        #expect(other?.material.gramsBySpool == [:], "no spools but its integration's")
        #expect(other?.material.activeSpool == nil)
        #expect(other?.currentPrint().material.grams == 42.5, "ha-bambulab's rule is not Acme's")
    }

    @Test func builtInIntegrationsFactsAreConsistent() {
        for profile in PrinterProfile.builtIn {
            // A cancel event or a failure that may be a cancel needs a code to stand for it.
            if profile.busEvents?.meanings.values.contains(.cancelled) == true || profile.failureMayBeCancel {
                #expect(profile.cancelCode != nil, "\(profile.name)")
            }
            #expect(PrinterProfile.named(profile.name) == profile)
        }
        #expect(PrinterProfile.bambuLab.errorNotation(50_348_044) == "0300-400C")
        #expect(PrinterProfile.octoPrint.errorNotation(42) == "42")
        #expect(PrinterProfile.default == .bambuLab)
    }
}
