import PrintBridgeCore

/// The agent's time: wall time (`now`) for what a payload or a person reads
/// and for the pipeline's deadlines, and a way to wait for one of them.
public protocol AgentClock: EpochClock {
    /// Returns once `deadline` has come; throws when the task is cancelled.
    func sleep(until deadline: EpochTime) async throws
}

/// The system's clocks: the deadline is wall time, the wait itself is
/// measured in monotonic time (`Task.sleep`, on `ContinuousClock`), so an
/// NTP step during a wait does not stretch or cut it; the next deadline is
/// taken from wall time again.
public struct SystemAgentClock: AgentClock {
    public init() {}

    public func now() -> EpochTime { SystemClock().now() }

    public func sleep(until deadline: EpochTime) async throws {
        let seconds = deadline - now()
        guard seconds > 0 else { return }
        try await Task.sleep(for: .seconds(seconds))
    }
}
