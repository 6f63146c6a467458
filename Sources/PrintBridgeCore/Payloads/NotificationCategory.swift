/// The notification categories an alert names (`aps.category`), each the
/// identifier of a `UNNotificationCategory` the app registers with its
/// buttons (docs/notifications.md): the printer actions that fit the print
/// the alert is about, which the app sends back as
/// `POST /api/printers/{prefix}/actions/{action}`.
public enum NotificationCategory: String, CaseIterable, Hashable, Sendable {
    /// A print under way: Pause, Stop.
    case printRunning = "PRINT_RUNNING"
    /// A paused print: Resume, Stop.
    case printPaused = "PRINT_PAUSED"
    /// A print still preparing (heating, levelling): Stop only.
    case printPreparing = "PRINT_PREPARING"

    /// The buttons, in the order the app shows them.
    public var actions: [PrinterAction] {
        switch self {
        case .printRunning: [.pause, .stop]
        case .printPaused: [.resume, .stop]
        case .printPreparing: [.stop]
        }
    }

    /// The category of an alert about `event` with the printer in `status`;
    /// nil when no button fits: the print has ended, or the printer is not
    /// reporting (offline), or it is not printing.
    public init?(event: Push.Event, status: PrintStatus) {
        switch event {
        case .complete, .failed, .cancelled, .bedCooled, .offline, .update, .end, .start, .history, .test, .summary, .notify:
            return nil
        case .started, .milestone, .paused, .resumed, .printerError, .backOnline, .firstLayer, .minutesLeft:
            switch status {
            case .running: self = .printRunning
            case .preparing: self = .printPreparing
            case .paused: self = .printPaused
            case .idle, .complete, .failed, .cancelled: return nil
            }
        }
    }
}
