import AgentSettings
import APNsClient
import ArgumentParser
import PrintBridgeCore
import PrinterActivityContent

struct SendTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send-test",
        abstract: "Send one test push with the configured APNs credentials and print Apple's answer.",
        discussion: """
            Credentials come from the environment: APNS_TEAM_ID, APNS_KEY_ID, APNS_KEY_PATH, \
            APNS_BUNDLE_ID, APNS_PRODUCTION (true for the production environment, default \
            sandbox), APNS_BASE_URL and APNS_CA_FILE (a local test server). \
            Exit codes: 0 delivered, 69 not delivered (Apple's reason is printed), \
            64 usage error, 78 configuration error.
            """
    )

    @Option(name: .long, help: "The device token (hex) to send to; with --live-activity, a Live Activity update token.")
    var device: String

    @Flag(name: .customLong("live-activity"), help: "Send a Live Activity update instead of an alert.")
    var liveActivity = false

    func validate() throws {
        guard TokenFormat.isPlausibleToken(device) else {
            throw ValidationError("--device must be a hex APNs token (64 or more hex digits)")
        }
    }

    @OptionGroup var configOption: ConfigOption

    func run() async throws {
        let settings = try configOption.settings()
        let sender = try APNsSetup.sender(settings)
        defer { sender.shutdown() }
        let push = testPush(bundleID: sender.configuration.bundleID, configuration: settings.planner, now: SystemClock().now())
        let outcome = await sender.send(push)
        var output = LineWriter.standardOutput()
        output.write(APNsSetup.outcomeLine(push, outcome))
        output.flush()
        switch outcome {
        case .delivered:
            return
        case .rejected(_, let reason, let tokenAction):
            // A refused token was already reported with its advice.
            if tokenAction == nil, let advice = reason.advice {
                StandardStreams.err("printbridge: \(reason): \(advice)")
            }
            throw CommandFailure.unavailable()
        case .gaveUp:
            throw CommandFailure.unavailable()  // the outcome line says why
        }
    }

    private func testPush(bundleID: String, configuration: PlannerConfiguration, now: EpochTime) -> Push {
        let token = device.lowercased()
        if liveActivity {
            let state = PrinterActivityAttributes.ContentState(
                progress: 42, currentLayer: 105, totalLayers: 250, remainingSeconds: 1800, status: "running",
                nozzleTemp: 220, bedTemp: 65)
            let payload = (try? LiveActivityPayload.update(state, at: now, staleAfter: 900).encoded()) ?? []
            return Push(
                kind: .liveActivity, event: .update, printerPrefix: TestPayload.thread, deviceID: "send-test", token: token,
                tokenKind: .activity, topic: bundleID + ".push-type.liveactivity", priority: 10,
                collapseID: TestPayload.thread + ".activity", expiration: now + 900, payload: payload, createdAt: now)
        }
        // The alert the app's test-push call makes (PushPlanner.testPush), in ALERT_LANGUAGE.
        var planner = configuration
        planner.bundleID = bundleID
        let device = Device(id: "send-test", apnsToken: token)
        guard let push = PushPlanner(configuration: planner).testPush(to: device, now: now).pushes.first else {
            preconditionFailure("a test alert is a few hundred bytes: always made")
        }
        return push
    }
}
