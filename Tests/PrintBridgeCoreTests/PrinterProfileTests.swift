import PrintBridgeCore
import Testing

@Suite struct PrinterProfileTests {
    func state(_ id: String, _ value: String, _ attributes: [String: JSONValue] = [:]) -> HAState {
        HAState(entityID: id, state: value, attributes: attributes)
    }

    @Test func eachIntegrationsVocabulary() {
        #expect(PrinterProfile.octoPrint.status(raw: "Printing from SD") == .running)
        #expect(PrinterProfile.octoPrint.status(raw: "printing_sd") == .running)
        #expect(PrinterProfile.octoPrint.status(raw: "Operational") == .idle)
        #expect(PrinterProfile.octoPrint.status(raw: "Cancelling") == .cancelled)
        #expect(PrinterProfile.octoPrint.status(raw: "Offline after error") == .failed)
        #expect(PrinterProfile.octoPrint.status(raw: "Offline") == nil)
        #expect(PrinterProfile.octoPrint.status(raw: "Sending file to SD") == nil)
        #expect(PrinterProfile.prusaLink.status(raw: "attention") == .paused)
        #expect(PrinterProfile.prusaLink.status(raw: "stopped") == .cancelled)
        #expect(PrinterProfile.prusaLink.status(raw: "busy") == nil)
        #expect(PrinterProfile.moonraker.status(raw: "standby") == .idle)
        #expect(PrinterProfile.moonraker.status(raw: "complete") == .complete)
        #expect(PrinterProfile.moonraker.status(raw: "cancelled") == .cancelled)
        // Another integration's word means nothing here.
        #expect(PrinterProfile.moonraker.status(raw: "finish") == nil)
        #expect(PrinterProfile.bambuLab.status(raw: "unavailable") == nil)
    }

    @Test func octoPrintIdsAndHAsCopyNumber() {
        let matcher = EntityMatcher()
        #expect(matcher.match(entityID: "sensor.octoprint_current_state") == EntityMatch(prefix: "octoprint", field: .status, profile: .octoPrint))
        #expect(matcher.match(entityID: "sensor.octoprint_current_state_2")?.prefix == "octoprint_2")
        // Siblings of an OctoPrint not yet seen are nobody's.
        #expect(matcher.match(entityID: "sensor.octoprint_job_percentage_2") == nil)
        var learned = matcher
        learned.learn(from: [state("sensor.octoprint_current_state_2", "Printing")])
        #expect(learned.match(entityID: "sensor.octoprint_job_percentage_2") == EntityMatch(prefix: "octoprint_2", field: .progress, profile: .octoPrint))
        #expect(learned.match(entityID: "sensor.octoprint_target_bed_temp_2") == nil)
    }

    @Test func commonSuffixesNeedTheirPrinter() {
        var matcher = EntityMatcher()
        #expect(matcher.match(entityID: "sensor.dishwasher_progress") == nil)
        matcher.learn(from: [state("sensor.voron_current_print_state", "printing")])
        #expect(matcher.match(entityID: "sensor.voron_progress") == EntityMatch(prefix: "voron", field: .progress, profile: .moonraker))
        #expect(matcher.match(entityID: "sensor.voron_print_eta")?.field == .finishTime)
        #expect(matcher.match(entityID: "sensor.dishwasher_progress") == nil)
        #expect(matcher.printerProfiles["voron"] == .moonraker)
    }

    @Test func prusaLinkStatusRecognisedByItsOptions() {
        var matcher = EntityMatcher()
        let options = JSONValue.array(["idle", "busy", "printing", "paused", "finished", "stopped", "error", "attention", "ready"].map { .string($0) })
        matcher.learn(from: [
            state("sensor.prusa_mk4_progress", "12"),
            state("sensor.prusa_mk4", "printing", ["options": options, "device_class": "enum"]),
            state("sensor.robot_vacuum", "cleaning", ["options": .array([.string("cleaning")])]),
        ])
        #expect(matcher.match(entityID: "sensor.prusa_mk4") == EntityMatch(prefix: "prusa_mk4", field: .status, profile: .prusaLink))
        #expect(matcher.match(entityID: "sensor.prusa_mk4_progress")?.prefix == "prusa_mk4")
        #expect(matcher.match(entityID: "sensor.prusa_mk4_heatbed_temperature")?.field == .bedTemp)
        #expect(matcher.match(entityID: "sensor.robot_vacuum") == nil)
    }

    @Test func registryPicksTheProfileByPlatform() {
        var matcher = EntityMatcher()
        matcher.applyRegistry([
            // Moonraker names entities in English only: no translation keys.
            EntityRegistryEntry(entityID: "sensor.voron_current_print_state", platform: "moonraker", translationKey: nil, deviceID: "d1"),
            EntityRegistryEntry(entityID: "sensor.voron_progress", platform: "moonraker", translationKey: nil, deviceID: "d1"),
            // A German PrusaLink: ids in German, keys in English.
            EntityRegistryEntry(entityID: "sensor.mk4", platform: "prusalink", translationKey: "printer_state", deviceID: "d2"),
            EntityRegistryEntry(entityID: "sensor.mk4_fortschritt", platform: "prusalink", translationKey: "progress", deviceID: "d2"),
            // Another integration's look-alike.
            EntityRegistryEntry(entityID: "sensor.washer_progress", platform: "miele", translationKey: "progress", deviceID: "d3"),
        ])
        #expect(matcher.match(entityID: "sensor.voron_progress") == EntityMatch(prefix: "voron", field: .progress, profile: .moonraker))
        #expect(matcher.match(entityID: "sensor.mk4") == EntityMatch(prefix: "mk4", field: .status, profile: .prusaLink))
        #expect(matcher.match(entityID: "sensor.mk4_fortschritt") == EntityMatch(prefix: "mk4", field: .progress, profile: .prusaLink))
        #expect(matcher.match(entityID: "sensor.washer_progress") == nil)
    }

    @Test func finishTimeGivesRemainingSeconds() {
        var cache = PrinterCache()
        let now = ISO8601.parse("2026-11-20T09:00:00+00:00")!
        let match = EntityMatch(prefix: "octoprint", field: .finishTime, profile: .octoPrint)
        let change = cache.apply(match, state: state("sensor.octoprint_estimated_finish_time", "2026-11-20T09:42:00+00:00"), at: now)
        #expect(change?.current.remainingSeconds == 42 * 60)
        let later = cache.apply(
            EntityMatch(prefix: "octoprint", field: .progress, profile: .octoPrint),
            state: state("sensor.octoprint_job_percentage", "50.0"), at: now + 120)
        #expect(later?.current.remainingSeconds == 40 * 60)
        #expect(cache.apply(match, state: state("sensor.octoprint_estimated_finish_time", "unknown"), at: now + 150) == nil)
    }

    /// OctoPrint after a restart: PrintBridge had told "started"; HA now
    /// shows Operational at 100 %: the finish is told once.
    @Test func octoPrintFinishMissedWhileAwayIsToldOnce() {
        let clock = ManualClock(ISO8601.parse("2026-11-20T10:00:00+00:00")!)
        let remembered = ["octoprint": PrinterNotificationState(lastStatus: .running, printID: "octoprint-1", milestoneReference: 80)]
        var configuration = PlannerConfiguration()
        configuration.reasonWindow = 3
        var pipeline = PrinterPipeline(
            planner: PushPlanner(configuration: configuration, restoring: remembered),
            devices: [Device(id: "phone", apnsToken: String(repeating: "ab", count: 32))], clock: clock)
        let status = EntityMatch(prefix: "octoprint", field: .status, profile: .octoPrint)
        let progress = EntityMatch(prefix: "octoprint", field: .progress, profile: .octoPrint)
        var pushes = pipeline.handle(PrinterInput(time: clock.now(), .snapshot([
            MatchedState(match: status, state: state("sensor.octoprint_current_state", "operational")),
            MatchedState(match: progress, state: state("sensor.octoprint_job_percentage", "100")),
        ]))).pushes
        clock.advance(by: 5)
        pushes += pipeline.fireDue(upTo: clock.now()).pushes
        #expect(pushes.filter { $0.kind == .alert }.map(\.event) == [.complete])
        clock.advance(by: 60)
        #expect(pipeline.fireDue(upTo: clock.now()).pushes.isEmpty)
    }
}
