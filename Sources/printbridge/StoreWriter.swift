import DeviceStore
import Dispatch
import Logging
import PrintBridgeCore

/// Writes `run`'s notification state and outbox to the store on a thread
/// of its own, in order, so a disk stall (an ext4 journal commit, the WAL's
/// fsync, a slow SD card) never holds up the event loop and the next push.
///
/// A change's printer memory and the pushes it made are one transaction
/// (`OutboxDelivery` queues them before anything can answer them); the
/// pushes' removal, once APNs has answered, comes after it in the queue.
/// A failed write is logged with the store's path.
struct StoreWriter: Sendable {
    let store: DeviceStore
    let logger: Logger
    private let queue = DispatchQueue(label: "printbridge.store.writer")

    init(store: DeviceStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Queues one change: printers' states, ended prints, ended activities'
    /// token removals, new outbox entries and settled ones.
    func commit(
        states: [String: PrinterNotificationState] = [:], prints: [PrintRecord] = [],
        endedActivities: [PushPlanner.ActivityEnd] = [], enqueue: [Outbox.Entry] = [], settled: [Int] = []
    ) {
        guard !states.isEmpty || !prints.isEmpty || !endedActivities.isEmpty || !enqueue.isEmpty || !settled.isEmpty
        else { return }
        queue.async { [store, logger] in
            do {
                try store.commit(
                    states: states, prints: prints, endedActivities: endedActivities, enqueue: enqueue, settled: settled)
            } catch {
                logger.error("could not write to the device store: \(error)", metadata: ["store.path": "\(store.path)"])
            }
        }
    }

    /// Waits until everything queued is written: before reading devices back
    /// from the store, and before exiting.
    func drain() {
        queue.sync {}
    }
}
