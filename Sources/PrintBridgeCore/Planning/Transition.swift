/// A status change worth telling someone about.
public enum Transition: String, Hashable, Sendable {
    case started, resumed, paused, complete, failed, cancelled

    /// The transition from the last known status to a new one, if any.
    /// `unknown`-like states never get here: they are not statuses.
    public init?(from old: PrintStatus, to new: PrintStatus) {
        switch (old, new) {
        case (.idle, .running), (.complete, .running), (.failed, .running), (.cancelled, .running),
            (.preparing, .running):
            self = .started
        case (.paused, .running): self = .resumed
        case (.running, .paused): self = .paused
        case (.running, .complete), (.paused, .complete): self = .complete
        case (.running, .failed), (.paused, .failed): self = .failed
        case (.running, .cancelled), (.paused, .cancelled): self = .cancelled
        default: return nil
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
        case .resumed: return nil
        }
    }
}
