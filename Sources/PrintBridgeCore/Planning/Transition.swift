/// A status change worth telling someone about.
public enum Transition: String, Hashable, Sendable {
    case started, resumed, paused, complete, failed, cancelled
    /// A print left running/paused for idle or preparing without finishing
    /// or failing (and did not come back): its Live Activity ends, no alert.
    case abandoned

    /// The transition from the last known status to a new one, if any.
    /// `unknown`-like states never get here: they are not statuses.
    public init?(from old: PrintStatus, to new: PrintStatus) {
        switch (old, new) {
        case (.idle, .running), (.complete, .running), (.failed, .running), (.cancelled, .running),
            (.preparing, .running):
            self = .started
        case (.paused, .running): self = .resumed
        // A preparing printer has a print: a pause, a failure or a cancel
        // during preparation is told as from running.
        case (.running, .paused), (.preparing, .paused): self = .paused
        case (.running, .complete), (.paused, .complete): self = .complete
        case (.running, .failed), (.paused, .failed), (.preparing, .failed): self = .failed
        case (.running, .cancelled), (.paused, .cancelled), (.preparing, .cancelled): self = .cancelled
        case (.running, .idle), (.paused, .idle), (.running, .preparing), (.paused, .preparing): self = .abandoned
        default: return nil
        }
    }

    /// The status an ending transition leaves the print in.
    var terminalStatus: PrintStatus {
        switch self {
        case .failed: return .failed
        case .cancelled: return .cancelled
        case .abandoned: return .idle
        default: return .complete
        }
    }

    /// The alert this transition sends, if it sends one.
    var alertEvent: Push.Event? {
        switch self {
        case .started: return .started
        case .paused: return .paused
        case .complete: return .complete
        case .failed: return .failed
        case .cancelled: return .cancelled
        case .resumed, .abandoned: return nil
        }
    }
}
