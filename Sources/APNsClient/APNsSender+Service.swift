import ServiceLifecycle

/// The APNs client as a part of the agent's `ServiceGroup`: its connection
/// thread runs from `init`; at graceful shutdown, which reaches it after
/// the agent (whose pushes in flight have had their grace), it stops: what
/// is still unanswered fails and stays in the agent's outbox.
extension APNsSender: Service {
    public func run() async throws {
        // Cancellation ends the wait as well: either way the connection goes.
        try? await gracefulShutdown()
        shutdown(grace: 0)
    }
}
