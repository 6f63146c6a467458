import AgentSettings
import APNsClient
import ArgumentParser
import DeviceStore
import EventReplay
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay recorded Home Assistant event files and print the pushes they would cause.",
        discussion: """
            Each FILE holds one HA WebSocket message per line (see SampleEvents/README.md). \
            Time comes from the recorded time_fired, so throttling and milestones behave \
            as they did live. Prints one line per push on stdout; bad lines are reported \
            on stderr as FILE:LINE and skipped.

            Without --devices, one demo device follows every printer with every \
            notification on and keeps a Live Activity open for every printer. \
            Environment: APNS_BUNDLE_ID, MILESTONES, LIVE_ACTIVITY_INTERVAL, START_SETTLE, CANCEL_WINDOW, \
            FLICKER_WINDOW, REASON_WINDOW, OFFLINE_WINDOW, BED_COOLED_BELOW, ALERT_LANGUAGE (options win).

            With --send (and --devices), the pushes go to APNs with the APNS_* credentials \
            (see `printbridge send-test --help`) as the print happened: the recording's \
            first moment becomes now, and each push is sent at its time, --speed times \
            faster than recorded. Live Activity updates are throttled on that played time \
            (--live-activity-interval is then real seconds between updates on the phone). \
            One JSON line per outcome is printed instead. Exit 69 if any push was not \
            delivered.
            """
    )

    @Argument(help: "Recorded event files (.jsonl).")
    var files: [String]

    @Option(name: .long, help: "Devices file: a JSON array of {apnsToken, printerPrefix?, settings?, activityTokens?, pushToStartToken?}.")
    var devices: String?

    @Option(name: .long, help: "Output format: json (one object per line) or text.")
    var format: OutputFormat = .json

    @Option(name: .customLong("bundle-id"), help: "The iOS app's bundle id (APNs topic).")
    var bundleID: String?

    @Option(name: .long, help: "Progress milestones in percent, comma-separated (default 25,50,75).")
    var milestones: String?

    @Option(name: .customLong("live-activity-interval"), help: "Minimum seconds between routine Live Activity updates per printer (default 30).")
    var liveActivityInterval: Double?

    @Flag(name: .long, help: "Print counts, messages/s and peak memory to stderr when done.")
    var stats = false

    @Flag(name: .long, help: "Deliver the pushes to APNs (needs --devices and APNS_* settings) and print each outcome.")
    var send = false

    @Option(name: .long, help: "With --send: play the recording this many times faster than it happened (default 1, real time; 60 plays an hour in a minute).")
    var speed: Double?

    @Option(name: .customLong("state-dir"), help: "Remember what was notified in this directory's device store, as run does: a later replay continues where this one stopped.")
    var stateDirectory: String?

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case json, text
    }

    func validate() throws {
        if let speed, !send {
            throw ValidationError("--speed \(speed) paces --send; without --send a replay runs as fast as it can")
        }
        if let speed, !(speed > 0 && speed.isFinite) {
            throw ValidationError("--speed must be a positive number, not \(speed)")
        }
        if send && devices == nil {
            throw ValidationError("--send needs --devices: the demo device's tokens are not real")
        }
    }

    @OptionGroup var configOption: ConfigOption

    func run() async throws {
        // The options are the settings' highest source.
        var options: [String: String] = [:]
        options["APNS_BUNDLE_ID"] = bundleID
        options["MILESTONES"] = milestones
        options["LIVE_ACTIVITY_INTERVAL"] = liveActivityInterval.map { "\($0)" }
        let settings = try configOption.settings(commandLine: options)
        try settings.check([.planner])
        var configuration = settings.planner
        let sender = send ? try APNsSetup.sender(settings) : nil
        if let sender { configuration.bundleID = sender.configuration.bundleID }
        let lineFormat: PushLineFormat = format == .json ? .json : .text
        var store: DeviceStore?
        var remembered: [String: PrinterNotificationState] = [:]
        if let stateDirectory {
            do {
                store = try DeviceStore(directory: stateDirectory)
                remembered = try store?.notificationStates() ?? [:]
            } catch { throw Self.configError("\(error)") }
        }
        var run =
            if let devices {
                ReplayRun(
                    devices: try loadDevices(path: devices), planner: configuration, matcher: settings.matcher,
                    startingAt: send ? SystemClock().now() : nil, speed: speed ?? 1, restoring: remembered)
            } else {
                ReplayRun.demo(
                    planner: configuration, matcher: settings.matcher, restoring: remembered)
            }
        var output = LineWriter.standardOutput()
        var toSend: [Push] = []
        let started = MonotonicClock.seconds()
        let onPush: (Push) -> Void = { push in
            if send { toSend.append(push) } else { output.write(lineFormat.line(for: push)) }
        }
        for file in files {
            run.replay(path: file, onPush: onPush, onDiagnostic: { StandardStreams.err("printbridge: \($0)") })
        }
        run.finish(onPush: onPush, onDiagnostic: { StandardStreams.err("printbridge: \($0)") })
        output.flush()
        do { try store?.commit(states: run.notificationStates) } catch {
            StandardStreams.err("printbridge: \(error)")
        }
        let elapsed = MonotonicClock.seconds() - started
        let summary = run.summary
        if stats {
            printStatistics(summary, elapsed: elapsed)
        }
        var undelivered = 0
        if let sender {
            defer { sender.shutdown() }
            undelivered = await Self.send(toSend, with: sender, output: &output)
        }
        if summary.unreadableFiles > 0 {
            throw CommandFailure.noInput()  // each unreadable file was named as it was read
        }
        if undelivered > 0 {
            throw CommandFailure.unavailable()  // each push's outcome line says why
        }
    }

    /// Sends each push at its time: a Live Activity then moves on the phone
    /// as the print did, and no push is stamped in the future. Pushes due
    /// together (a fan-out to many phones, or a backlog once the clock has
    /// passed them) go out at once, multiplexed on the one connection, up to
    /// 1,000 in flight, the next starting as one is answered (`SendWindow`);
    /// two to the same token are never in flight together, so each phone
    /// gets its pushes in order. Outcome lines keep the recording's order.
    /// Returns how many were not delivered.
    static func send(_ pushes: [Push], with sender: APNsSender, output: inout LineWriter) async -> Int {
        var window = SendWindow<PushOutcome>(tokens: pushes.map(\.token), due: pushes.map(\.createdAt))
        var undelivered = 0
        // Each round starts what may start as one batch, then takes every
        // answer that came meanwhile: no task or wake-up a push.
        let answers = PushAnswers()
        while !window.isDone {
            let now = SystemClock().now()
            var batch: [TaggedPush] = []
            while let position = window.start(at: now) { batch.append(TaggedPush(pushes[position], tag: position)) }
            sender.send(batch, to: answers)
            if window.inFlight == 0 {
                // Nothing out and nothing may start: the next push is not due yet.
                output.flush()
                let wait = (window.nextDue ?? now) - now
                if wait > 0 { try? await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
                continue
            }
            for (position, outcome) in await answers.next() { window.finish(position, outcome) }
            while let (index, outcome) = window.nextInOrder() {
                if !outcome.isDelivered { undelivered += 1 }
                output.write(APNsSetup.outcomeLine(pushes[index], outcome))
            }
        }
        output.flush()
        return undelivered
    }

    private func loadDevices(path: String) throws -> [Device] {
        do { return try DevicesFile.load(path: path) } catch { throw Self.configError("\(error)") }
    }

    private static func configError(_ message: String) -> Error {
        CommandFailure.config(message)
    }

    private func printStatistics(_ summary: ReplayRun.Summary, elapsed: Double) {
        let stats = summary.reading
        let rate = elapsed > 0 ? Double(summary.lines) / elapsed : 0
        StandardStreams.err(
            "replay: \(summary.lines) lines in \(formatted(elapsed, digits: 3)) s (\(Int(rate)) messages/s); "
                + "\(stats.frames) parsed, \(summary.badLines) bad; "
                + "\(stats.matchedUpdates) printer entity updates, \(summary.pushes) pushes; "
                + "peak RSS \(formatted(Double(StandardStreams.peakRSSBytes()) / 1_048_576, digits: 1)) MiB")
    }

    private func formatted(_ value: Double, digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        return String(rounded)
    }
}

