import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Feeds recorded HA event files through the pipeline on a virtual clock
/// and reports every push it would send.
///
/// Bad lines are reported with file:line and skipped; a file that cannot be
/// read at all is reported and the next one is replayed.
public struct ReplayRun: ~Copyable {
    /// A problem with the input, for stderr.
    public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
        public var file: String
        public var line: Int?
        public var message: String
        public var description: String {
            line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
        }
    }

    public struct Summary: Hashable, Sendable {
        public var filesRead = 0
        public var unreadableFiles = 0
        public var lines = 0
        public var badLines = 0
        public var pushes = 0
        /// Frames, messages and printer updates read.
        public var reading = HAFrameReader.Statistics()
        public var statistics = PipelineStatistics()

        public init() {}
    }

    public private(set) var pipeline: PrinterPipeline
    /// The same frame path the daemon's HA link runs.
    public private(set) var reader: HAFrameReader
    private let clock: ManualClock
    public private(set) var summary = Summary()

    /// Devices that act like a phone keeping a Live Activity open for every
    /// printer: whenever one has no activity token for a printer the pipeline
    /// knows (first sight, or the last activity ended), it registers a fresh one,
    /// as the app does when it starts an activity.
    private let simulatedApps: Set<String>
    private var activityCounter = 0
    /// When set, recorded times are moved so the first one becomes this
    /// moment (for sending a recording to a real phone "now"), and the time
    /// between them divided by `speed`.
    private let startingAt: EpochTime?
    private let speed: Double
    private var firstRecorded: EpochTime?

    public init(
        devices: [Device], planner: PlannerConfiguration = .init(), matcher: EntityMatcher = EntityMatcher(),
        simulatingAppOn simulatedApps: Set<String> = [], startingAt: EpochTime? = nil,
        speed: Double = 1, restoring remembered: [String: PrinterNotificationState] = [:]
    ) {
        precondition(speed > 0, "speed must be positive")
        clock = ManualClock()
        pipeline = PrinterPipeline(
            planner: PushPlanner(configuration: planner, restoring: remembered), devices: devices, clock: clock)
        // Printers a phone follows by channel get one, as the agent makes them.
        let channelPrinters = devices.reduce(into: Set<String>()) { $0.formUnion($1.channelPrinters) }
        pipeline.setChannels(Dictionary(uniqueKeysWithValues: channelPrinters.map { ($0, Self.simulatedChannel(prefix: $0)) }))
        reader = HAFrameReader(matcher: matcher)
        self.simulatedApps = simulatedApps
        self.startingAt = startingAt
        self.speed = speed
    }

    /// A replay as `printbridge replay` runs it without a devices file: the
    /// demo device, acting like the app.
    public static func demo(
        planner: PlannerConfiguration = .init(), matcher: EntityMatcher = EntityMatcher(),
        restoring remembered: [String: PrinterNotificationState] = [:]
    ) -> ReplayRun {
        ReplayRun(
            devices: DevicesFile.demoDevices, planner: planner, matcher: matcher,
            simulatingAppOn: Set(DevicesFile.demoDevices.map(\.id)), restoring: remembered)
    }

    /// Every printer's notification state now (to save in a store).
    public var notificationStates: [String: PrinterNotificationState] { pipeline.planner.printers }

    /// The update token the simulated app registers for a printer's nth activity.
    static func simulatedActivityToken(prefix: String, activity: Int) -> String {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in "\(prefix)#\(activity)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 1_099_511_628_211
        }
        let hex = String(hash, radix: 16)
        let word = String(repeating: "0", count: 16 - hex.count) + hex
        return "ac" + String(repeating: word, count: 5) + "ac"
    }

    /// The broadcast channel id replay gives a printer: base64 of 16 bytes,
    /// as APNs' ids look, derived from the prefix (replay makes no channel).
    static func simulatedChannel(prefix: String) -> String {
        var hash: UInt64 = 14_695_981_039_346_656_037
        var bytes: [UInt8] = []
        for round in 0..<2 {
            for byte in "\(prefix)#channel\(round)".utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 1_099_511_628_211
            }
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: hash >> UInt64(shift))) }
        }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var text = ""
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                text.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : "=")
            }
            index += 3
        }
        return text
    }

    /// Gives simulated apps an activity for every printer they lack one for.
    private mutating func openSimulatedActivities() {
        guard !simulatedApps.isEmpty else { return }
        let prefixes = pipeline.cache.printers.keys.sorted()
        for index in pipeline.devices.indices where simulatedApps.contains(pipeline.devices[index].id) {
            for prefix in prefixes where pipeline.devices[index].activityTokens[prefix] == nil {
                activityCounter += 1
                pipeline.devices[index].activityTokens[prefix] =
                    Self.simulatedActivityToken(prefix: prefix, activity: activityCounter)
            }
        }
    }

    /// Replays one file. `onPush` receives each push in order; `onDiagnostic` each problem.
    public mutating func replay(
        path: String, onPush: (Push) -> Void, onDiagnostic: (Diagnostic) -> Void
    ) {
        var reader: LineReader
        do throws(LineReader.OpenError) { reader = try LineReader(path: path) } catch {
            summary.unreadableFiles += 1
            onDiagnostic(Diagnostic(file: path, line: nil, message: "cannot read file: \(error.reason)"))
            return
        }
        summary.filesRead += 1
        do {
            try reader.forEachLine { line, number in
                summary.lines += 1
                handle(line: line, number: number, path: path, onPush: onPush, onDiagnostic: onDiagnostic)
            }
        } catch {
            onDiagnostic(Diagnostic(file: path, line: reader.lineNumber, message: "read failed: \(error)"))
        }
        summary.statistics = pipeline.statistics
        summary.reading = self.reader.statistics
    }

    private mutating func handle(
        line: UnsafeRawBufferPointer, number: Int, path: String, onPush: (Push) -> Void,
        onDiagnostic: (Diagnostic) -> Void
    ) {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        let read: [HAMessage]
        do throws(HAMessageError) { read = try reader.messages(in: line) } catch {
            summary.badLines += 1
            onDiagnostic(Diagnostic(file: path, line: number, message: "skipped: \(error)"))
            return
        }
        for message in read {
            if let recorded = message.time {
                var time = recorded
                if let startingAt {
                    let first = firstRecorded ?? recorded
                    firstRecorded = first
                    time = startingAt + (recorded - first) / speed
                }
                emit(pipeline.fireDue(upTo: time), path: path, line: number, onPush: onPush, onDiagnostic: onDiagnostic)
                clock.set(time)
            }
            for input in reader.inputs(from: message) {
                openSimulatedActivities()
                emit(pipeline.handle(input), path: path, line: number, onPush: onPush, onDiagnostic: onDiagnostic)
            }
        }
    }

    /// Sends what is still scheduled (throttled Live Activity updates), as the
    /// daemon's timers would after the recording ends.
    public mutating func finish(onPush: (Push) -> Void, onDiagnostic: (Diagnostic) -> Void) {
        emit(pipeline.fireDue(upTo: .distantFuture), path: "(end)", line: nil, onPush: onPush, onDiagnostic: onDiagnostic)
        summary.statistics = pipeline.statistics
        summary.reading = reader.statistics
    }

    private mutating func emit(
        _ output: PrinterPipeline.Output, path: String, line: Int?, onPush: (Push) -> Void,
        onDiagnostic: (Diagnostic) -> Void
    ) {
        for failure in output.failures {
            onDiagnostic(Diagnostic(file: path, line: line, message: failure))
        }
        for push in output.pushes {
            summary.pushes += 1
            onPush(push)
        }
    }
}
