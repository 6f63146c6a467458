import ControlAPI
import HomeAssistantLink
import NamedThreads
import ServiceLifecycle

/// One long-running part of `run` in its `ServiceGroup`: a service with a
/// name, so that when it fails, `run` says which part failed and exits with
/// the code that fits (`failure`), rather than one message for every error.
struct RunPart: Service, CustomStringConvertible {
    enum Name: String, Sendable {
        case apns = "the APNs client"
        case api = "the app's API"
        case agent = "the agent"
        case homeAssistant = "the Home Assistant link"
        case signals = "the signal handler"
    }

    /// A part's error, with the part.
    struct Failure: Error, CustomStringConvertible {
        var part: Name
        var error: any Error
        var description: String { "\(part.rawValue) failed: \(error)" }
    }

    let name: Name
    let service: any Service
    /// Once its service has ended, the part waits for its own turn in the
    /// group's shutdown (see `init`).
    let waitsForItsTurn: Bool

    /// `waitsForItsTurn`: for a service that ends when one shut down before
    /// it ends, as the agent ends with the link's events. The link ends them
    /// just before its own `run` returns, and the group, waiting for the
    /// link, takes any other part that finishes first for a failure
    /// (`ServiceGroupError.serviceFinishedUnexpectedly`, exit 71); with
    /// several threads serving tasks, the agent sometimes did.
    init(_ name: Name, _ service: any Service, waitsForItsTurn: Bool = false) {
        self.name = name
        self.service = service
        self.waitsForItsTurn = waitsForItsTurn
    }

    var description: String { name.rawValue }

    func run() async throws {
        do { try await service.run() } catch { throw Failure(part: name, error: error) }
        if waitsForItsTurn { try? await gracefulShutdown() }
    }

    /// What `run` exits with when its group ends with `error`: a thread the
    /// system refused is 71; libwebsockets that cannot be set up (its TLS,
    /// HA_CA_FILE) and a device store that cannot be read are 78, as the
    /// same problems found before anything runs.
    static func failure(_ error: any Error, store: String) -> CommandFailure {
        guard let failure = error as? Failure else {
            return .system("the agent stopped: \(error)")
        }
        switch (failure.part, failure.error) {
        case (.homeAssistant, let error as HomeAssistantLink.StartError) where !error.isThread:
            return .config("\(error)")
        case (.homeAssistant, HomeAssistantLink.StartError.thread(let error)):
            return .system("\(failure.part.rawValue) could not start: \(error)")
        case (_, let error as NamedThread.StartError):
            return .system("\(failure.part.rawValue) could not start: \(error)")
        case (.agent, let error):
            return .config("the device store \(store) cannot be read: \(error)")
        default:
            return .system(failure.description)
        }
    }
}

extension HomeAssistantLink.StartError {
    var isThread: Bool {
        if case .thread = self { return true }
        return false
    }
}
