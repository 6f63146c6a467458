import ServiceLifecycle

/// The Home Assistant link as a part of the agent's `ServiceGroup`: it
/// connects (and reconnects) from `run` until graceful shutdown or
/// cancellation, then closes the connection, and `events` ends: the agent,
/// shut down after it, takes no more events and finishes what it has.
extension HomeAssistantLink: Service {
    /// Throws `HomeAssistantLink.StartError` when it cannot start.
    public func run() async throws {
        try start()
        try? await gracefulShutdown()
        stop()
    }
}
