import APNsClient
import Foundation
import PrintBridgeCore
import Testing

/// The silent background push, as the planner makes it, through the real
/// sender (HTTP/2, TLS, JWT) to the mock APNs, which checks it as Apple
/// documents: `apns-push-type: background`, priority 5, the bundle id as
/// topic, `aps` with `content-available: 1` and nothing else.
@Suite(.serialized) struct BackgroundPushSenderTests {
    let server: MockAPNsServer
    let sender: APNsSender

    init() throws {
        server = try MockAPNsServer(recording: true)
        sender = try APNsSender(
            configuration: server.configuration, key: try APNsSigningKey(path: server.keyPath), sleep: { _ in })
    }

    /// A print that completed, run through the pipeline as the daemon runs it.
    func plannedPushes() -> [Push] {
        let clock = ManualClock(SystemClock().now())
        let prefix = "x1c_00m09a350100123"
        var pipeline = PrinterPipeline(
            planner: PushPlanner(configuration: PlannerConfiguration(bundleID: MockAPNsServer.bundleID)),
            devices: [Device(id: "phone", apnsToken: token("ab", 41))], clock: clock)
        var pushes: [Push] = []
        var reader = HAFrameReader()
        func set(_ suffix: String, _ value: String, after: Double) {
            clock.advance(by: after)
            let now = clock.now()
            pushes += pipeline.fireDue(upTo: now).pushes
            let entityID = "sensor.\(prefix)\(suffix)"
            let state = HAState(entityID: entityID, state: value, lastChanged: now, lastUpdated: now)
            let message = HAMessage.event(id: 2, HAEvent(
                eventType: "state_changed", timeFired: now,
                stateChange: StateChange(entityID: entityID, oldState: nil, newState: state)))
            for input in reader.inputs(from: message) { pushes += pipeline.handle(input).pushes }
        }
        set("_print_status", "idle", after: 0)
        set("_print_status", "running", after: 1)
        set("_print_progress", "50", after: 600)
        set("_print_status", "finish", after: 600)
        pushes += pipeline.fireDue(upTo: clock.now() + 3600).pushes
        return pushes
    }

    @Test func thePlannersBackgroundPushIsAcceptedAtPriorityFive() async throws {
        let pushes = plannedPushes()
        let background = try #require(pushes.first { $0.kind == .background })
        #expect(pushes.filter { $0.kind == .background }.count == 1)
        #expect(await sender.send(background).isDelivered)
        let recorded = try #require(server.requests().last)
        #expect(recorded["push_type"] as? String == "background")
        #expect(recorded["priority"] as? String == "5")
        #expect(recorded["event"] as? String == "print_history")
        #expect(recorded["collapse_id"] as? String == "x1c_00m09a350100123.history")
        let aps = (recorded["payload"] as? [String: Any])?["aps"] as? [String: Any]
        #expect(aps?.count == 1 && aps?["content-available"] as? Int == 1)
        // And the alert of the same end, beside it.
        #expect(await sender.send(try #require(pushes.first { $0.event == .complete })).isDelivered)
    }

    @Test func theMockRefusesABackgroundPushAppleWould() async throws {
        var background = try #require(plannedPushes().first { $0.kind == .background })
        background.token = token("ab", 42)
        var urgent = background
        urgent.priority = 10
        #expect(await sender.send(urgent) == .rejected(status: 400, reason: "BadPriority", tokenAction: nil))
        var noisy = background
        noisy.payload = Array(#"{"aps":{"content-available":1,"sound":"default"}}"#.utf8)
        #expect(await sender.send(noisy) == .rejected(status: 400, reason: "BadPayload", tokenAction: nil))
        #expect(await sender.send(background).isDelivered)
    }
}
