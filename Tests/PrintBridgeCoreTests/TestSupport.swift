import PrintBridgeCore

/// Builds HA state objects and events the way HA sends them, for tests.
enum HA {
    static let x1c = "x1c_00m09a350100123"
    static let p1s = "p1s_01p09c470200456"

    static func entity(_ prefix: String, _ suffix: String, domain: String = "sensor") -> String {
        "\(domain).\(prefix)\(suffix)"
    }

    static func state(
        _ entityID: String, _ value: String, attributes: [String: JSONValue] = [:], at seconds: Double = 0
    ) -> HAState {
        HAState(
            entityID: entityID, state: value, attributes: attributes,
            lastChanged: EpochTime(seconds: seconds), lastUpdated: EpochTime(seconds: seconds))
    }

    static func event(_ entityID: String, _ value: String, attributes: [String: JSONValue] = [:], at seconds: Double = 0)
        -> HAMessage
    {
        .event(
            id: 2,
            HAEvent(
                eventType: "state_changed", timeFired: EpochTime(seconds: seconds),
                stateChange: StateChange(
                    entityID: entityID, oldState: nil,
                    newState: state(entityID, value, attributes: attributes, at: seconds))))
    }

    /// A state_changed event with HA's previous state too.
    static func change(_ entityID: String, from old: String, to new: String, at seconds: Double = 0) -> HAMessage {
        .event(
            id: 2,
            HAEvent(
                eventType: "state_changed", timeFired: EpochTime(seconds: seconds),
                stateChange: StateChange(
                    entityID: entityID, oldState: state(entityID, old, at: seconds - 60),
                    newState: state(entityID, new, at: seconds))))
    }

    static let deviceToken = String(repeating: "ab", count: 32)
    static let activityToken = String(repeating: "cd", count: 40)
    static let pushToStartToken = String(repeating: "ef", count: 40)
}

/// A pipeline on a manual clock with helpers to feed printer fields.
struct PipelineHarness {
    let clock = ManualClock(EpochTime(seconds: 1_000_000))
    var pipeline: PrinterPipeline
    /// One reader for every message, as a connection has: it learns which
    /// printers exist (an OctoPrint's `_job_percentage` counts beside its status).
    var reader = HAFrameReader()
    var pushes: [Push] = []
    /// Prints that ended, for the history.
    var prints: [PrintRecord] = []
    /// Silent background pushes (a print ended), kept apart from `pushes`
    /// and from what `set`, `busEvent` and `wait` return, which are what a
    /// phone shows; `limited`: those over a phone's hourly allowance.
    var background: [Push] = []
    var limited: [Push] = []

    init(devices: [Device], configuration: PlannerConfiguration = .init(), restoring state: [String: PrinterNotificationState] = [:]) {
        pipeline = PrinterPipeline(
            planner: PushPlanner(configuration: configuration, restoring: state), devices: devices, clock: clock)
    }

    /// Sets a field of a printer at the clock's time plus `after` seconds; fires
    /// scheduled updates due before it first, like replay and the daemon do.
    @discardableResult
    mutating func set(_ prefix: String, _ suffix: String, _ value: String, after: Double = 0,
                      attributes: [String: JSONValue] = [:]) -> [Push] {
        let time = clock.now() + after
        let due = pipeline.fireDue(upTo: time)
        clock.set(time)
        var handled = PrinterPipeline.Output()
        for input in reader.inputs(from: HA.event(HA.entity(prefix, suffix), value, attributes: attributes, at: time.seconds)) {
            let output = pipeline.handle(input)
            handled.pushes += output.pushes
            handled.prints += output.prints
            handled.limited += output.limited
        }
        return keep(due, handled)
    }

    /// An integration's bus event about a printer (ha-bambulab's
    /// `event_print_failed`, …) at the clock's time plus `after` seconds.
    @discardableResult
    mutating func busEvent(_ prefix: String, _ type: String, after: Double = 0) -> [Push] {
        let time = clock.now() + after
        let due = pipeline.fireDue(upTo: time)
        clock.set(time)
        let handled = pipeline.handle(PrinterInput(time: time, .printerEvent(prefix: prefix, type: type)))
        return keep(due, handled)
    }

    /// Records what the outputs produced; returns the pushes a phone shows.
    private mutating func keep(_ outputs: PrinterPipeline.Output...) -> [Push] {
        var shown: [Push] = []
        for output in outputs {
            shown += output.pushes.filter { $0.kind != .background }
            background += output.pushes.filter { $0.kind == .background }
            limited += output.limited
            prints += output.prints
        }
        pushes += shown
        return shown
    }

    /// Lets time pass, firing whatever falls due.
    @discardableResult
    mutating func wait(_ seconds: Double) -> [Push] {
        let time = clock.now() + seconds
        let due = pipeline.fireDue(upTo: time)
        clock.set(time)
        return keep(due)
    }

    /// Brings a printer to a running print, first seen idle (a baseline),
    /// then started (the start told once it has settled).
    mutating func startPrint(_ prefix: String, file: String = "benchy.3mf") {
        set(prefix, "_print_status", "idle")
        set(prefix, "_task_name", file)
        set(prefix, "_print_progress", "0")
        set(prefix, "_print_status", "running", after: 1)
        wait(pipeline.planner.configuration.startSettle)
    }

}

extension Array where Element == Push {
    var events: [Push.Event] { map(\.event) }
    var alerts: [Push] { filter { $0.kind == .alert } }
    var liveActivity: [Push] { filter { $0.kind == .liveActivity } }
}

extension Push {
    var json: JSONValue { (try? JSONParser.parse(payload)) ?? .null }
}

func device(
    _ id: String = "phone", printers: Set<String> = [], preferences: NotificationPreferences = .all,
    activity: [String: String] = [:], pushToStart: String? = nil
) -> Device {
    Device(
        id: id, apnsToken: HA.deviceToken, printerPrefixes: printers, preferences: preferences,
        activityTokens: activity, pushToStartToken: pushToStart)
}

extension PrinterPipeline {
    /// Feeds one HA message as the frame reader would (default matcher, no registry).
    mutating func handle(_ message: HAMessage) -> Output {
        var reader = HAFrameReader()
        var output = Output()
        for input in reader.inputs(from: message) {
            let produced = handle(input)
            output.pushes += produced.pushes
            output.prints += produced.prints
            output.endedActivities += produced.endedActivities
            output.failures += produced.failures
            output.changedPrinters.formUnion(produced.changedPrinters)
        }
        return output
    }
}
