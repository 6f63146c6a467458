import AsyncAlgorithms
import ControlAPI
import DeviceStore
import HomeAssistantLink
import Logging
import PrintBridgeCore
import ServiceLifecycle

/// The agent's main job as a service (swift-service-lifecycle's `Service`):
/// Home Assistant's printer updates in, pushes out, the store kept.
///
/// Every input arrives in one stream, read by one task: HA's events (from
/// the link, with its back-pressure: `merge` asks for the next event only
/// when the agent has taken the last), device changes, new settings, the
/// sender's answers and the agent's own wake-up at its next deadline
/// (the pipeline's timers, an outbox retry, the heap trim, the end of the
/// shutdown grace). Nothing is polled and nothing ticks: with no input and
/// no deadline the agent sleeps. Another process changing the store
/// (`printbridge devices …`) is noticed by a watch on its files
/// (`StoreWatch`, inotify), not by asking.
///
/// In the `ServiceGroup` the link is shut down before the agent, so its
/// stream ends first; the agent's own graceful shutdown (SIGTERM, SIGINT)
/// takes no more of its events either way. Pushes in flight then get
/// `shutdownGrace` seconds to be answered; what APNs has not answered by
/// then stays in the store's outbox for the next start. Cancellation ends
/// at once. The sender is a service of its own, shut down after the agent.
public final class Agent<LinkEvents: AsyncSequence & Sendable>: Service, Sendable
where LinkEvents.Element == LinkEvent, LinkEvents.Failure == Never {
    public struct Configuration: Sendable {
        /// Home Assistant's address, for log lines.
        public var endpoint: HAEndpoint
        /// Seconds at most between retries of pushes APNs has not answered.
        public var retryMaximum: Double = 30
        /// Seconds pushes in flight get at shutdown.
        public var shutdownGrace: Double = 5
        /// Seconds after a bulk message before the heap is trimmed (the link
        /// lets go of its buffers meanwhile).
        public var trimDelay: Double = 0.5

        public init(endpoint: HAEndpoint) {
            self.endpoint = endpoint
        }
    }

    /// What the agent calls out to.
    public struct Hooks: Sendable {
        /// Gives freed memory back to the system (after a bulk message).
        public var releaseMemory: @Sendable () -> Void
        /// The printers as they are now, for the app's API.
        public var publishPrinters: @Sendable ([PrinterSnapshot]) -> Void
        /// Called after each input is handled (tests wait on it).
        public var handled: @Sendable (AgentInput) -> Void
        /// Takes a picture of printer `printer` for its alerts and returns
        /// its signed link, or nil (logged and counted by the hook); nil:
        /// alerts go without pictures.
        public var takeSnapshot: (@Sendable (_ printer: String, _ now: EpochTime) async -> String?)?
        /// Seconds an alert waits for its picture at most.
        public var snapshotTimeout: Double
        /// APNs' channel management API, for a broadcast channel per printer
        /// (iOS 18 Live Activities); nil: every activity by its token (a dry run).
        public var channels: (any ChannelManager)?
        /// The APNs environment the channels are made in ("sandbox", "production").
        public var channelEnvironment: String

        public init(
            releaseMemory: @escaping @Sendable () -> Void = {},
            publishPrinters: @escaping @Sendable ([PrinterSnapshot]) -> Void = { _ in },
            handled: @escaping @Sendable (AgentInput) -> Void = { _ in },
            takeSnapshot: (@Sendable (String, EpochTime) async -> String?)? = nil, snapshotTimeout: Double = 3,
            channels: (any ChannelManager)? = nil, channelEnvironment: String = "sandbox"
        ) {
            self.channels = channels
            self.channelEnvironment = channelEnvironment
            self.releaseMemory = releaseMemory
            self.publishPrinters = publishPrinters
            self.handled = handled
            self.takeSnapshot = takeSnapshot
            self.snapshotTimeout = snapshotTimeout
        }
    }

    /// For the API, SIGHUP and the sender's answers.
    public let inbox: AgentInbox
    private let inputs: AsyncStream<AgentInput>
    private let linkEvents: LinkEvents
    let sender: any PushSender
    let store: AgentStore
    let clock: any AgentClock
    let planner: PlannerConfiguration
    let metrics: AgentMetrics
    let logger: Logger
    let configuration: Configuration
    let hooks: Hooks

    public init(
        linkEvents: LinkEvents, sender: any PushSender, store: AgentStore, clock: any AgentClock = SystemAgentClock(),
        planner: PlannerConfiguration, metrics: AgentMetrics, logger: Logger, configuration: Configuration, hooks: Hooks
    ) {
        let (stream, continuation) = AsyncStream<AgentInput>.makeStream()
        inputs = stream
        inbox = AgentInbox(continuation: continuation)
        self.linkEvents = linkEvents
        self.sender = sender
        self.store = store
        self.clock = clock
        self.planner = planner
        self.metrics = metrics
        self.logger = logger
        self.configuration = configuration
        self.hooks = hooks
    }

    /// Reads the store, then handles inputs until the link's stream has
    /// ended and the pushes in flight are answered (or their grace is over).
    /// Throws when the store cannot be read at the start.
    public func run() async throws {
        let start = try await store.start()
        logger.info("device store opened", metadata: [
            "store.path": "\(store.path)", "devices.count": .stringConvertible(start.devices.count),
        ])
        if start.devices.isEmpty {
            logger.warning(
                "no devices registered (give --devices FILE, use the API or printbridge devices add); pushes have nowhere to go")
        }
        var channels: ChannelRunner?
        if let manager = hooks.channels {
            let environment = hooks.channelEnvironment
            let stored = try await store.read { try $0.channels(environment: environment) }
            channels = ChannelRunner(
                manager: manager, environment: environment,
                stored: ChannelKeeper(channels: stored.byPrinter, lastSeen: stored.lastSeen, deletions: stored.deletions),
                store: store, inbox: inbox, logger: logger)
        }
        let loop = AgentLoop(agent: self, start: start, channels: channels)
        // What the store kept may be due with no news at all (alerts held
        // for quiet hours end in the morning, HA or not): wake for it.
        loop.scheduleWake(afterWake: false)
        let stream = merge(chain(linkEvents.map { AgentInput.link($0) }, [AgentInput.linkEnded].async), inputs)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.watchStore(from: start.dataVersion) }
                for await input in stream {
                    await loop.handle(input)
                    if loop.isFinished {
                        hooks.handled(input)
                        break
                    }
                    loop.scheduleWake(afterWake: input.isDeadline)
                    hooks.handled(input)
                }
                group.cancelAll()
            }
        } onGracefulShutdown: { [inbox] in
            // The link has normally ended already (shut down before the agent).
            inbox.send(.linkEnded)
        }
        inbox.continuation.finish()
        loop.finish()
        // Everything queued is on disk before the process may exit.
        await store.drain()
    }

    /// Tells the agent when another process changed the store: each write
    /// to its files (`StoreWatch`) is followed by a look at SQLite's data
    /// version, which only another connection's commit moves. `version` is
    /// the one the devices were read at; a look once the watch runs catches
    /// a change made before it did.
    private func watchStore(from version: Int) async {
        let watch: StoreWatch
        do {
            watch = try StoreWatch(directory: store.directory)
            watch.start()
        } catch {
            logger.warning(
                "changes to the devices by another process reach the agent only on SIGHUP",
                metadata: ["store.path": "\(store.path)", "error": "\(error)"])
            return
        }
        defer { watch.stop() }
        var version = version
        func look() async {
            guard let now = try? await store.read({ try $0.dataVersion() }), now != version else { return }
            version = now
            inbox.devicesChanged()
        }
        await look()
        for await _ in watch.changes { await look() }
    }
}
