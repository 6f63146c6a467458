import NamedThreads
import ServiceLifecycle

/// The app's API as a part of the agent's `ServiceGroup`: it listens from
/// `init` (a taken port fails before anything runs) and serves on its own
/// thread from `run` until graceful shutdown or cancellation.
extension HTTPServer: Service {
    /// Throws `NamedThread.StartError` when its thread cannot be started.
    public func run() async throws {
        try start()
        try? await gracefulShutdown()
        stop()
    }
}
