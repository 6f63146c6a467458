import Logging
import PrintBridgeCore

/// Runs the `ChannelKeeper`'s operations against APNs (`ChannelManager`)
/// and its changes against the store and the log, for the agent's loop:
/// used only from the task that reads the agent's inputs. Each operation
/// runs in a task of its own; its answer comes back as an input
/// (`AgentInput.channel`).
final class ChannelRunner {
    private var keeper: ChannelKeeper
    private let manager: any ChannelManager
    /// The APNs environment the channels belong to ("sandbox", "production").
    let environment: String
    private let store: AgentStore
    private let inbox: AgentInbox
    private let logger: Logger

    init(
        manager: any ChannelManager, environment: String, stored: ChannelKeeper, store: AgentStore, inbox: AgentInbox,
        logger: Logger
    ) {
        self.manager = manager
        self.environment = environment
        keeper = stored
        self.store = store
        self.inbox = inbox
        self.logger = logger
    }

    /// Each printer's channel id.
    var channels: [String: String] { keeper.channels }
    var nextDeadline: EpochTime? { keeper.nextDeadline }

    /// Printers in an update (`complete`: a snapshot of them all). Returns
    /// whether the channels changed.
    func saw(_ prefixes: Set<String>, complete: Bool, now: EpochTime) -> Bool {
        guard complete || !prefixes.isSubset(of: keeper.printers) else { return false }
        let before = keeper.channels
        apply(keeper.saw(prefixes, complete: complete, now: now))
        startDue(now: now)
        return keeper.channels != before
    }

    /// Starts what is due (after a back-off, at the start).
    func startDue(now: EpochTime) {
        for operation in keeper.start(now: now) {
            let manager = self.manager, inbox = self.inbox
            Task { @Sendable in
                let answer = await ChannelRunner.perform(operation, on: manager)
                inbox.send(.channel(operation, answer))
            }
        }
    }

    /// Asks APNs for one operation.
    private static func perform(
        _ operation: ChannelKeeper.Operation, on manager: any ChannelManager
    ) async -> ChannelKeeper.Answer {
        switch operation {
        case .list: return answer(await manager.listChannels(), ChannelKeeper.Answer.listed)
        case .create: return answer(await manager.createChannel(), ChannelKeeper.Answer.created)
        case .delete(let channel): return answer(await manager.deleteChannel(channel)) { .deleted }
        }
    }

    private static func answer<T>(
        _ result: Result<T, ChannelFailure>, _ made: (T) -> ChannelKeeper.Answer
    ) -> ChannelKeeper.Answer {
        switch result {
        case .success(let value): return made(value)
        case .failure(let failure): return .failed(failure)
        }
    }

    /// An operation's answer. Returns whether the channels changed.
    func finished(_ operation: ChannelKeeper.Operation, _ answer: ChannelKeeper.Answer, now: EpochTime) -> Bool {
        let before = keeper.channels
        apply(keeper.finished(operation, answer, now: now))
        startDue(now: now)
        return keeper.channels != before
    }

    /// APNs refused a broadcast: its channel is gone. Returns whether the channels changed.
    func broadcastRefused(channel: String, now: EpochTime) -> Bool {
        let before = keeper.channels
        apply(keeper.channelGone(channel))
        startDue(now: now)
        return keeper.channels != before
    }

    private func apply(_ changes: [ChannelKeeper.Change]) {
        let environment = self.environment
        for change in changes {
            switch change {
            case .save(let printer, let channel):
                logger.info("Live Activity broadcast channel made", metadata: [
                    "printer.prefix": "\(printer)", "channel.id": "\(channel)", "apns.environment": "\(environment)",
                ])
                store.write("could not keep a printer's broadcast channel") { store in
                    try store.saveChannel(channel, printerPrefix: printer, environment: environment)
                }
            case .retire(let printer):
                logger.info("a printer gone from Home Assistant: its broadcast channel is deleted",
                            metadata: ["printer.prefix": "\(printer)"])
                store.write("could not retire a printer's broadcast channel") { store in
                    try store.retireChannel(printerPrefix: printer, environment: environment)
                }
            case .forget(let channel):
                store.write("could not forget a broadcast channel") { store in try store.forgetChannel(channel) }
            case .queueDeletion(let channel):
                store.write("could not queue a broadcast channel's deletion") { store in
                    try store.queueChannelDeletion(channel, environment: environment)
                }
            case .sawPrinters(let printers):
                store.write("could not note the printers seen") { store in
                    try store.sawPrinters(printers, environment: environment)
                }
            case .refused(let failure):
                var metadata: Logger.Metadata = ["apns.reason": "\(failure)"]
                if case .rejected(_, let reason) = failure, let advice = reason.advice { metadata["apns.advice"] = "\(advice)" }
                logger.warning(
                    "APNs refused Live Activity broadcast channels; printers' activities are updated token by token",
                    metadata: metadata)
            case .retrying(let operation, let failure, let at):
                logger.notice("a channel management request is tried again after a back-off", metadata: [
                    "channel.operation": "\(operation)", "apns.reason": "\(failure)",
                    "retry.at": "\(ISO8601.format(at))",
                ])
            }
        }
    }
}
