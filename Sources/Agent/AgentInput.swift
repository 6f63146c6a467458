import ControlAPI
import HomeAssistantLink
import PrintBridgeCore

/// Everything the agent reacts to, in the one stream it reads.
public enum AgentInput: Sendable {
    /// Home Assistant: matched printer updates, connection news.
    case link(LinkEvent)
    /// The link's stream ended (`stop`): no more HA messages; pushes in
    /// flight get the grace period.
    case linkEnded
    /// Devices changed in the store: through the app's API, another
    /// `printbridge` process, or SIGHUP.
    case devicesChanged
    /// New planner settings (SIGHUP re-read the settings file).
    case settings(PlannerConfiguration)
    /// APNs (or the dry-run sender) answered a push; a refused token's
    /// verdict comes with it. `seconds`: how long the answer took.
    case answered(Outbox.Entry, PushOutcome, seconds: Double)
    /// The deadline the agent asked to be woken at has come (the pipeline's
    /// timers, an outbox retry, the heap trim, the end of the grace period).
    case deadline(EpochTime)
    /// The picture asked for alerts (`request`) was taken: its signed link,
    /// or nil when there is none (the alerts go without).
    case snapshot(request: Int, link: String?)
    /// The store has written the change these held pushes announce (a
    /// silent push's print record): they may go.
    case stored([Outbox.Entry])
    /// The app (or the admin) asked for a test push to a phone (the API's
    /// `test-push`); `done` is told what was queued.
    case testPush(deviceID: String, done: @Sendable (TestPushOutcome) -> Void)
    /// The app opened the alert with this `apns-id` (issue 53): it is not told again.
    case alertOpened(apnsID: String)
    /// APNs' channel management API answered an operation (`ChannelRunner`).
    case channel(ChannelKeeper.Operation, ChannelKeeper.Answer)
}

extension AgentInput {
    var isDeadline: Bool {
        if case .deadline = self { return true }
        return false
    }
}

/// The way into a running agent for everything that is not Home Assistant:
/// the app's API, SIGHUP, the sender's answers and the agent's own timer.
/// Safe from any thread; an input sent after the agent stopped is dropped.
public struct AgentInbox: Sendable {
    let continuation: AsyncStream<AgentInput>.Continuation

    /// The devices in the store changed: the agent reads them back (after
    /// every write it queued before).
    public func devicesChanged() { continuation.yield(.devicesChanged) }

    /// New settings for what and when to notify.
    public func reconfigure(_ configuration: PlannerConfiguration) { continuation.yield(.settings(configuration)) }

    /// A test push to a phone, through the outbox like every alert (the
    /// API's `TestPushQueue`). After the agent stopped, `done` hears `stopping`.
    public func testPush(_ deviceID: String, done: @escaping @Sendable (TestPushOutcome) -> Void) {
        if case .terminated = continuation.yield(.testPush(deviceID: deviceID, done: done)) { done(.stopping) }
    }

    /// The app opened an alert (`POST …/notifications/{id}/opened`).
    public func alertOpened(_ apnsID: String) { continuation.yield(.alertOpened(apnsID: apnsID)) }

    func send(_ input: AgentInput) { continuation.yield(input) }
}
