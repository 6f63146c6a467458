import Agent
import ControlAPI
import DeviceStore
import HomeAssistantLink
import Logging
import PrintBridgeCore
import ServiceLifecycle
import Synchronization
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A clock that moves only when a test moves it; sleepers wake when their
/// deadline has come.
final class ManualAgentClock: AgentClock {
    private struct Sleeper {
        let id: Int
        let deadline: EpochTime
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: EpochTime
        var sleepers: [Sleeper] = []
        var nextID = 0
    }

    private let state: Mutex<State>

    init(_ start: EpochTime = EpochTime(seconds: 1_800_000_000)) {
        state = Mutex(State(now: start))
    }

    func now() -> EpochTime { state.withLock { $0.now } }

    /// Deadlines someone sleeps until now (the agent's wake-up, the store check).
    var sleepingUntil: [EpochTime] { state.withLock { $0.sleepers.map(\.deadline).sorted() } }

    func sleep(until deadline: EpochTime) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let wake: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let wake { continuation.resume(with: wake) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time on and wakes whoever's deadline has come.
    func advance(by seconds: Double) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now + seconds
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}

/// A sender that records every push and answers as the test says: at once
/// with the next scripted outcome (delivered when none is left), or, while
/// `holding`, not until `release`.
final class RecordingSender: PushSender {
    private struct State {
        var pushes: [Push] = []
        var script: [PushOutcome] = []
        var holding = false
        var held: [CheckedContinuation<PushOutcome, Never>] = []
        var shutdowns = 0
    }

    private let state = Mutex(State())
    let deliveryKind: DeliveryKind

    init(deliveryKind: DeliveryKind = .apns) { self.deliveryKind = deliveryKind }

    var pushes: [Push] { state.withLock { $0.pushes } }
    var shutdowns: Int { state.withLock { $0.shutdowns } }
    var heldCount: Int { state.withLock { $0.held.count } }

    /// The next answers, in order.
    func script(_ outcomes: PushOutcome...) { state.withLock { $0.script += outcomes } }

    func hold() { state.withLock { $0.holding = true } }

    /// Answers every held push with `outcome` and stops holding.
    func release(_ outcome: PushOutcome = .delivered(apnsID: "released")) {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held.removeAll() }
            return state.held
        }
        for continuation in held { continuation.resume(returning: outcome) }
    }

    func send(_ push: Push) async -> PushOutcome {
        enum Next { case answer(PushOutcome), wait }
        let next = state.withLock { state -> Next in
            state.pushes.append(push)
            if state.holding { return .wait }
            return .answer(state.script.isEmpty ? .delivered(apnsID: push.apnsID ?? "") : state.script.removeFirst())
        }
        switch next {
        case .answer(let outcome): return outcome
        case .wait:
            return await withCheckedContinuation { continuation in state.withLock { $0.held.append(continuation) } }
        }
    }

    func shutdown(grace: Double) { state.withLock { $0.shutdowns += 1 } }
}

/// Log records kept for assertions.
final class LogRecorder: LogHandler, @unchecked Sendable {
    // @unchecked: `records` is behind its own Mutex; metadata and logLevel are
    // set once, before the logger is shared.
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let records: Mutex<[Record]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    init() { records = Mutex([]) }

    var all: [Record] { records.withLock { $0 } }

    func messages(_ level: Logger.Level? = nil) -> [String] {
        all.filter { level == nil || $0.level == level }.map(\.message)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var flat: [String: String] = [:]
        for (key, value) in event.metadata ?? [:] { flat[key] = "\(value)" }
        records.withLock { $0.append(Record(level: event.level, message: "\(event.message)", metadata: flat)) }
    }
}

/// Inputs the agent has handled, for a test to wait on without sleeping.
final class HandledInputs: Sendable {
    enum Kind: Sendable, Equatable { case link, linkEnded, devicesChanged, settings, answered, deadline, snapshot, testPush, stored, alertOpened, channel }

    private struct Waiter {
        let id: Int
        let isMet: @Sendable ([Kind]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private let state = Mutex((kinds: [Kind](), waiters: [Waiter](), nextID: 0))

    var kinds: [Kind] { state.withLock { $0.kinds } }

    func record(_ input: AgentInput) {
        let kind: Kind
        switch input {
        case .link: kind = .link
        case .linkEnded: kind = .linkEnded
        case .devicesChanged: kind = .devicesChanged
        case .settings: kind = .settings
        case .answered: kind = .answered
        case .deadline: kind = .deadline
        case .snapshot: kind = .snapshot
        case .testPush: kind = .testPush
        case .stored: kind = .stored
        case .alertOpened: kind = .alertOpened
        case .channel: kind = .channel
        }
        let met = state.withLock { state -> [Waiter] in
            state.kinds.append(kind)
            let kinds = state.kinds
            let met = state.waiters.filter { $0.isMet(kinds) }
            state.waiters.removeAll { $0.isMet(kinds) }
            return met
        }
        for waiter in met { waiter.continuation.resume() }
    }

    /// Returns once `isMet` holds for the inputs handled so far; after 10 min
    /// of real time it records an issue and returns, so a broken agent fails
    /// the test instead of hanging the suite.
    func wait(
        until isMet: @escaping @Sendable ([Kind]) -> Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        let guardTask = Task { [self] in
            try await Task.sleep(for: .seconds(600))
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            if let waiter {
                Issue.record("the agent did not get there within 10 min; handled: \(kinds)", sourceLocation: sourceLocation)
                waiter.continuation.resume()
            }
        }
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if isMet(state.kinds) { return true }
                state.waiters.append(Waiter(id: id, isMet: isMet, continuation: continuation))
                return false
            }
            if now { continuation.resume() }
        }
        guardTask.cancel()
    }

    /// Returns once `count` inputs of `kind` have been handled in all.
    func wait(for kind: Kind, count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        await wait(until: { kinds in kinds.filter { $0 == kind }.count >= count }, sourceLocation: sourceLocation)
    }
}

/// An agent in this process: a temporary store with one phone, a scripted
/// HA message stream, a recording sender and a manual clock.
final class AgentHarness: Sendable {
    static let printer = "x1c_00m09a350100123"
    static let phone = String(repeating: "ab", count: 32)

    let clock = ManualAgentClock()
    let sender: RecordingSender
    let logs = LogRecorder()
    let handled = HandledInputs()
    let metrics: AgentMetrics
    let directory: String
    let store: DeviceStore
    /// The store as the agent uses it (its queue): `drain` before reading `store` mid-run.
    let agentStore: AgentStore
    let agent: Agent<AsyncStream<LinkEvent>>
    private let link: AsyncStream<LinkEvent>.Continuation
    private let reader = Mutex(HAFrameReader())
    private let calls = HookCalls()

    /// What the agent did through its hooks.
    final class HookCalls: Sendable {
        let trims = Mutex(0)
        let published = Mutex<[PrinterSnapshot]>([])
    }

    var trims: Int { calls.trims.withLock { $0 } }
    var published: [PrinterSnapshot] { calls.published.withLock { $0 } }

    private let ownsDirectory: Bool

    init(
        sender: RecordingSender = RecordingSender(), planner: PlannerConfiguration = .init(), phones: [String] = [phone],
        directory: String? = nil, notificationRetention: Double = 30 * 86400, channels: (any ChannelManager)? = nil
    ) throws {
        self.sender = sender
        ownsDirectory = directory == nil
        self.directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("agent-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: self.directory, withIntermediateDirectories: true)
        store = try DeviceStore(directory: self.directory, clock: clock)
        for phone in phones {
            _ = try store.register(apnsToken: phone, haURL: nil, printerPrefix: nil, printerName: nil)
        }
        metrics = AgentMetrics(clock: clock, apnsMode: "configured")
        let (stream, continuation) = AsyncStream<LinkEvent>.makeStream()
        link = continuation
        let logs = logs, handled = handled, calls = calls
        var logger = Logger(label: "agent-test") { _ in logs }
        logger.logLevel = .trace
        agentStore = try AgentStore(store, logger: logger, notificationRetention: notificationRetention)
        agent = Agent(
            linkEvents: stream, sender: sender, store: agentStore, clock: clock, planner: planner,
            metrics: metrics, logger: logger, configuration: .init(endpoint: try HAEndpoint(url: "http://127.0.0.1:8123")),
            hooks: .init(
                releaseMemory: { calls.trims.withLock { $0 += 1 } },
                publishPrinters: { list in calls.published.withLock { $0 = list } },
                handled: { handled.record($0) }, channels: channels))
    }

    /// A second agent on the first one's store (a restart), its clock a minute on.
    convenience init(reusing other: AgentHarness) throws {
        try self.init(phones: [], directory: other.directory)
        clock.advance(by: other.clock.now() - clock.now() + 60)
    }

    deinit { if ownsDirectory { try? FileManager.default.removeItem(atPath: directory) } }

    /// Sends HA's news and waits until the agent has handled it.
    func send(_ event: LinkEvent) async {
        let before = handled.kinds.filter { $0 == .link }.count
        link.yield(event)
        await handled.wait(for: .link, count: before + 1)
    }

    /// A state_changed event for one of the printer's entities, at the clock's time.
    func set(_ suffix: String, _ value: String, domain: String = "sensor") async {
        let entity = "\(domain).\(Self.printer)\(suffix)"
        let now = clock.now()
        let state = HAState(entityID: entity, state: value, attributes: [:], lastChanged: now, lastUpdated: now)
        let message = HAMessage.event(
            id: 2,
            HAEvent(eventType: "state_changed", timeFired: now, stateChange: StateChange(entityID: entity, oldState: nil, newState: state)))
        let inputs = reader.withLock { $0.inputs(from: message) }
        await send(.printers(inputs))
    }

    /// The moves of a print starting (ha-bambulab's entities), up to the
    /// start's settle time, which the test lets pass.
    func startPrint(file: String = "benchy.3mf") async {
        await set("_print_status", "idle")
        await set("_task_name", file)
        await set("_print_progress", "0")
        clock.advance(by: 1)
        await set("_print_status", "running")
    }

    /// Moves the clock on and waits for the agent's wake-up it makes due.
    func advance(by seconds: Double) async {
        let before = handled.kinds.filter { $0 == .deadline }.count
        clock.advance(by: seconds)
        await handled.wait(for: .deadline, count: before + 1)
    }

    /// Ends HA's stream as the link does when it stops.
    func endLink() { Self.end(link) }

    private static func end(_ link: AsyncStream<LinkEvent>.Continuation) {
        link.yield(.disconnected(.shuttingDown))
        link.finish()
    }

    /// A print's start and its settle time (START_SETTLE, 5 s): the started alert goes out.
    func startPrintAndLetItSettle() async {
        await startPrint()
        await advance(by: 5)
    }

    /// Ends HA's stream and lets the 5 s grace for pushes in flight run out;
    /// returns when the agent has stopped.
    func stopAndLetTheGraceRunOut(_ run: Task<Void, any Error>) async throws {
        endLink()
        await handled.wait(for: .linkEnded, count: 1)
        await advance(by: 5)
        try await run.value
    }

    var alerts: [Push] { sender.pushes.filter { $0.kind == .alert } }
}

/// Runs `body` with the agent running; the agent must have ended when it returns.
func withAgent(
    _ harness: AgentHarness, _ body: (AgentHarness, Task<Void, any Error>) async throws -> Void
) async throws {
    let run = Task { try await harness.agent.run() }
    try await body(harness, run)
    harness.endLink()
    try await run.value
}
