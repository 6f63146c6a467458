import PrintBridgeCore
import Synchronization

/// Saves what each change made PrintBridge remember only once APNs has
/// answered that change's pushes, and in the order the changes happened.
///
/// So a crash can never leave the store saying "notified" for a push that
/// had not left: after a restart the change is seen again and its pushes
/// go out again, with the same `apns-id` and `apns-collapse-id` (the phone
/// shows one). A change with no pushes (or a dry run) is saved as soon as
/// every change before it is.
final class SaveSequencer: Sendable {
    private struct Entry {
        var waiting: Int
        var states: [String: PrinterNotificationState]
        var ended: [PushPlanner.ActivityEnd]
    }

    private struct Queue {
        var next = 0
        var head = 0
        var entries: [Int: Entry] = [:]
    }

    private let writer: StoreWriter
    private let queue = Mutex(Queue())

    init(writer: StoreWriter) {
        self.writer = writer
    }

    /// Queues a change's memory; it is saved once `pushes` answers have
    /// come in (`answered`) and everything queued before it is saved.
    /// Returns the ticket the answers name.
    func enqueue(
        states: [String: PrinterNotificationState], ended: [PushPlanner.ActivityEnd], waitingFor pushes: Int
    ) -> Int {
        queue.withLock { queue in
            let ticket = queue.next
            queue.next += 1
            queue.entries[ticket] = Entry(waiting: pushes, states: states, ended: ended)
            flush(&queue)
            return ticket
        }
    }

    /// One of the ticket's pushes has its outcome (delivered, rejected or given up).
    func answered(_ ticket: Int) {
        queue.withLock { queue in
            queue.entries[ticket]?.waiting -= 1
            flush(&queue)
        }
    }

    /// Live Activities whose end is still waiting to be saved: a device list
    /// re-read from the store must not bring their spent tokens back.
    var pendingEndedActivities: [PushPlanner.ActivityEnd] {
        queue.withLock { $0.entries.values.flatMap(\.ended) }
    }

    /// Hands every ready entry at the head to the store's writer, in order
    /// (under the lock, so two threads cannot reorder them; the writer only queues).
    private func flush(_ queue: inout Queue) {
        while let entry = queue.entries[queue.head], entry.waiting <= 0 {
            queue.entries[queue.head] = nil
            queue.head += 1
            writer.save(entry.states, endedActivities: entry.ended)
        }
    }
}
