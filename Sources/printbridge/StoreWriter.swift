import DeviceStore
import Dispatch
import Logging
import PrintBridgeCore

/// Writes `run`'s notification state to the store on a thread of its own, in
/// order, so a disk stall (an ext4 journal commit, the WAL's fsync, a slow SD
/// card) never holds up the event loop and the next push.
///
/// The event loop hands a change's pushes to APNs first and then queues the
/// change's state here: a crash in between can repeat that alert after the
/// restart (with the same apns-collapse-id, so the phone replaces it) rather
/// than lose it.
struct StoreWriter: Sendable {
    let store: DeviceStore
    let logger: Logger
    private let queue = DispatchQueue(label: "printbridge.store.writer")

    init(store: DeviceStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Queues the changed printers' states and the ended activities' token removals.
    func save(_ states: [String: PrinterNotificationState], endedActivities: [PushPlanner.ActivityEnd]) {
        guard !states.isEmpty || !endedActivities.isEmpty else { return }
        queue.async { [store, logger] in
            do {
                try store.saveNotificationStates(states)
                if !endedActivities.isEmpty { try store.removeActivityTokens(endedActivities) }
            } catch {
                logger.error("\(error)")
            }
        }
    }

    /// Waits until everything queued is written: before reading devices back
    /// from the store, and before exiting.
    func drain() {
        queue.sync {}
    }
}
