/// A printer's status, normalised from whatever its integration reports.
public enum PrintStatus: String, CaseIterable, Hashable, Sendable, Codable {
    case idle
    case preparing
    case running
    case paused
    case complete
    case failed
    case cancelled

    /// Normalises a raw state (case and surrounding spaces ignored). Returns nil
    /// for `unavailable`, `unknown`, `offline`, empty and unrecognised states:
    /// they carry no information about the print.
    public init?(raw: String) {
        switch raw.trimmingWhitespace.lowercased() {
        case "running", "printing": self = .running
        case "pause", "paused": self = .paused
        case "finish", "finished", "complete", "completed": self = .complete
        case "failed", "error": self = .failed
        case "cancelled", "canceled": self = .cancelled
        case "prepare", "slicing", "init", "starting": self = .preparing
        case "idle", "standby", "ready": self = .idle
        default: return nil
        }
    }

    /// A print is under way.
    public var isActive: Bool { self == .running || self == .paused }

    /// The print has ended.
    public var isTerminal: Bool { self == .complete || self == .failed || self == .cancelled }
}
