import Logging
import PrintBridgeCore

/// The log records about pushes and prints, with their data in metadata.
public enum PushLog {
    /// What identifies a push in a log line (never a whole token).
    public static func metadata(_ push: Push) -> Logger.Metadata {
        [
            "printer.prefix": "\(push.printerPrefix)", "push.event": "\(push.event.rawValue)",
            "push.type": "\(push.kind.rawValue)", "push.device": "\(push.shortToken)",
            "push.token_kind": "\(push.tokenKind.rawValue)", "push.priority": .stringConvertible(push.priority),
            "push.topic": "\(push.topic)", "push.collapse_id": "\(push.collapseID ?? "")",
        ]
    }

    /// A push a dry run writes to the log instead of sending, with its payload.
    public static func dryRun(_ push: Push, _ logger: Logger) {
        var metadata = Self.metadata(push)
        metadata["push.payload"] = "\(push.payloadText)"
        metadata["push.at"] = "\(ISO8601.format(push.createdAt))"
        logger.info("push (dry run)", metadata: metadata)
    }

    /// A background push not sent: the phone had its hourly allowance.
    public static func limited(_ push: Push, _ logger: Logger) {
        logger.debug("background push skipped: the phone had its hourly allowance", metadata: Self.metadata(push))
    }

    /// A print that ended, as the history records it.
    public static func printEnded(_ print: PrintRecord, _ logger: Logger) {
        var metadata: Logger.Metadata = [
            "printer.prefix": "\(print.printer)", "print.outcome": "\(print.outcome.rawValue)",
            "print.duration_seconds": .stringConvertible(print.durationSeconds),
        ]
        if let file = print.file { metadata["print.file"] = "\(file)" }
        if let reason = print.reason { metadata["print.reason"] = "\(reason)" }
        logger.info("print ended", metadata: metadata)
    }

    /// How a push ended at APNs.
    public static func outcome(_ push: Push, _ outcome: PushOutcome, _ logger: Logger) {
        var metadata = Self.metadata(push)
        metadata["push.outcome"] = "\(outcome.name)"
        switch outcome {
        case .delivered(let id):
            metadata["apns.id"] = "\(id)"
            logger.info("push delivered", metadata: metadata)
        case .rejected(let status, let reason, let action):
            metadata["apns.status"] = .stringConvertible(status)
            metadata["apns.reason"] = "\(reason)"
            if let action { metadata["token.action"] = "\(action.rawValue)" }
            if let advice = reason.advice { metadata["apns.advice"] = "\(advice)" }
            logger.warning("push rejected", metadata: metadata)
        case .gaveUp(let cause, let attempts):
            metadata["apns.reason"] = "\(cause)"
            metadata["push.attempts"] = .stringConvertible(attempts)
            logger.error("push given up", metadata: metadata)
        }
    }
}

/// `--dry-run` / DRY_RUN: every push is written to the log (message
/// "push (dry run)", the payload in `push.payload`) and counts as delivered.
public struct DryRunSender: PushSender {
    private let logger: Logger

    public init(logger: Logger) { self.logger = logger }

    public var deliveryKind: DeliveryKind { .dryRun }

    public func send(_ push: Push) async -> PushOutcome {
        PushLog.dryRun(push, logger)
        return .delivered(apnsID: push.apnsID ?? "")
    }
}
