import DeviceStore
import Dispatch
import Logging
import PrintBridgeCore

/// Writes `run`'s notification state to the store on a thread of its own, in
/// order, so a disk stall (an ext4 journal commit, the WAL's fsync, a slow SD
/// card) never holds up the event loop and the next push.
///
/// The event loop hands a change's pushes to APNs first; `SaveSequencer`
/// queues the change's state here once APNs has answered them, so a crash
/// in between repeats those notifications after the restart (with the same
/// apns-id and apns-collapse-id, so the phone shows one) rather than loses
/// them.
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
