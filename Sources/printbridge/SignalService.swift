import Agent
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// `run`'s signals, read as swift-service-lifecycle reads them
/// (`UnixSignalsSequence`: a signal source on libdispatch's event loop, a
/// signalfd on Linux, no thread of its own). SIGTERM and SIGINT are the
/// `ServiceGroup`'s graceful-shutdown signals (`shutdown`): the group shuts
/// down in reverse order. SIGHUP is this part of the group: it re-reads the
/// settings file and the devices.
final class SignalService: Service {
    /// What the group shuts down gracefully on.
    static let shutdown: [UnixSignal] = [.sigterm, .sigint]
    private static let handled = [SIGTERM, SIGINT, SIGHUP]

    private let reload: SettingsReload
    private let inbox: AgentInbox

    init(reload: SettingsReload, inbox: AgentInbox) {
        self.reload = reload
        self.inbox = inbox
    }

    /// Blocks the handled signals in the calling thread and every thread it
    /// starts: call from the main thread before any other starts. libdispatch
    /// reads them from a signalfd, which on Linux sees only a signal that no
    /// thread would take the old way (swift-corelibs-libdispatch,
    /// src/event/event_epoll.c); one sent before the group listens waits,
    /// pending, instead of ending the process.
    static func block() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handled { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    func run() async throws {
        let hangUps = await UnixSignalsSequence(trapping: .sighup)
        for await _ in hangUps.cancelOnGracefulShutdown() {
            if let configuration = reload.reread() { inbox.reconfigure(configuration) }
            inbox.devicesChanged()
        }
    }
}
