import DeviceStore
import NamedThreads
import Logging
import PrintBridgeCore

/// The device store as the agent uses it: every SQLite call on one thread
/// of its own (`pb-store`, a `WorkQueue`), never on the agent's task or
/// Swift's cooperative threads, so a disk stall (an ext4 journal commit,
/// the WAL's fsync, a slow SD card) never holds up the next push.
///
/// Writes are queued and return at once; reads wait for their answer and
/// come after every write queued before them (one queue, in order), so
/// devices read back after a change already see its ended activities gone.
/// A change's printer memory and the pushes it made are one transaction;
/// their removal, once APNs has answered, comes after it in the queue.
public final class AgentStore: Sendable {
    public let store: DeviceStore
    private let logger: Logger
    private let queue = WorkQueue()
    /// Seconds the alerts sent are kept for the phones' history
    /// (NOTIFICATION_HISTORY_DAYS); 0: none is recorded.
    public let notificationRetention: Double
    /// Seconds each ended print is kept one by one (PRINT_HISTORY_DAYS);
    /// older ones are rolled up into daily statistics. 0: all are kept.
    public let printRetention: Double

    /// Throws when its thread cannot be started.
    public init(
        _ store: DeviceStore, logger: Logger, notificationRetention: Double = 30 * 86400, printRetention: Double = 0
    ) throws(NamedThread.StartError) {
        self.store = store
        self.logger = logger
        self.notificationRetention = max(0, notificationRetention)
        self.printRetention = max(0, printRetention)
        try queue.start(named: "pb-store")
    }

    deinit { queue.stop() }

    public var path: String { store.path }

    /// The directory the store's files are in.
    public var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// What the agent starts from.
    public struct Start: Sendable {
        public var devices: [Device]
        public var printers: [String: PrinterNotificationState]
        public var watchingSince: EpochTime
        /// Alerts held for phones in their quiet hours.
        public var held: [HeldAlert] = []
        /// Failures and printer errors waiting to be told again if unopened.
        public var retells: [PushPlanner.Retell] = []
        /// Pushes the last run left unanswered.
        public var outbox: [Outbox.Entry]
        /// SQLite's data version when the devices were read: another
        /// connection's commit after that moves it.
        public var dataVersion: Int
    }

    /// What the agent starts from, after the notifications past their
    /// retention are forgotten.
    public func start() async throws -> Start {
        try await read { [notificationRetention, printRetention, logger] store in
            try store.pruneNotifications(keeping: notificationRetention)
            Self.rollUp(store, keeping: printRetention, logger: logger)
            return Start(
                devices: try store.devicesAndActivities(), printers: try store.notificationStates(),
                watchingSince: try store.watchingSince(), held: try store.heldAlerts(), retells: try store.retells(),
                outbox: try store.outbox(),
                dataVersion: try store.dataVersion())
        }
    }

    /// Runs `body` on the store's queue, after everything queued before it.
    public func read<T: Sendable>(_ body: @escaping @Sendable (DeviceStore) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [store] in continuation.resume(with: Result { try body(store) }) }
        }
    }

    /// Queues one change: printers' states, ended prints, ended activities'
    /// token removals, new outbox entries and settled ones. The alerts among
    /// the new entries are recorded for the phones' history (their payloads
    /// read on the store's thread), and `outcomes` written to theirs. A
    /// failed write is logged with the store's path.
    public func commit(
        states: [String: PrinterNotificationState] = [:], prints: [PrintRecord] = [],
        endedActivities: [PushPlanner.ActivityEnd] = [], enqueue: [Outbox.Entry] = [], settled: [Int] = [],
        outcomes: [SentNotification.Settled] = [], held: [HeldAlert]? = nil, retells: [PushPlanner.Retell]? = nil
    ) {
        guard !states.isEmpty || !prints.isEmpty || !endedActivities.isEmpty || !enqueue.isEmpty || !settled.isEmpty
            || !outcomes.isEmpty || held != nil || retells != nil
        else { return }
        write("could not write to the device store") { [notificationRetention, printRetention, logger] store in
            let notifications = notificationRetention > 0 ? enqueue.compactMap { SentNotification(sent: $0.push) } : []
            try store.commit(
                states: states, prints: prints, endedActivities: endedActivities, enqueue: enqueue, settled: settled,
                notifications: notifications, outcomes: notificationRetention > 0 ? outcomes : [],
                keepNotifications: notificationRetention, held: held, retells: retells)
            // A print ended: the day's roll-up, if the day moved on (the store does it once a UTC day).
            if !prints.isEmpty { Self.rollUp(store, keeping: printRetention, logger: logger) }
        }
    }

    /// Rolls the prints older than the retention into daily statistics; a
    /// failure is logged (the prints stay, the next attempt tries again).
    static func rollUp(_ store: DeviceStore, keeping retention: Double, logger: Logger) {
        guard retention > 0 else { return }
        do {
            let count = try store.rollUp(keeping: retention)
            if count > 0 {
                logger.info("prints rolled up into daily statistics", metadata: [
                    "prints": "\(count)", "retention.days": "\(Int(retention / 86400))",
                ])
            }
        } catch {
            logger.error("could not roll up old prints", metadata: ["store.path": "\(store.path)", "error": "\(error)"])
        }
    }

    /// Queues a write of any other kind; `failure` begins its log line.
    public func write(_ failure: String, _ body: @escaping @Sendable (DeviceStore) throws -> Void) {
        queue.async { [store, logger] in
            do { try body(store) } catch {
                logger.error("\(failure)", metadata: ["store.path": "\(store.path)", "error": "\(error)"])
            }
        }
    }

    /// Returns once everything queued so far is written.
    public func drain() async {
        _ = try? await read { _ in () }
    }
}
