import Logging
import PrintBridgeCore
import PrintBridgeLogging

/// The log records `run` and `record` write, with their metadata.
enum RunLog {
    /// Sets up structured logging from LOG_FORMAT and LOG_LEVEL (exit 78 on a bad value).
    static func bootstrap() throws -> Logger {
        switch LogSetup.resolve(
            format: StandardStreams.environment("LOG_FORMAT"), level: StandardStreams.environment("LOG_LEVEL"))
        {
        case .success(let (format, level)):
            LogSetup.bootstrap(format: format, level: level)
            return Logger(label: "printbridge")
        case .failure(let error):
            StandardStreams.err("printbridge: \(error)")
            throw ExitCodes.config
        }
    }

    /// What identifies a push in a log line (never a whole token).
    static func metadata(_ push: Push) -> Logger.Metadata {
        [
            "printer.prefix": "\(push.printerPrefix)", "push.event": "\(push.event.rawValue)",
            "push.type": "\(push.kind.rawValue)", "push.device": "\(push.shortToken)",
            "push.token_kind": "\(push.tokenKind.rawValue)", "push.priority": .stringConvertible(push.priority),
            "push.topic": "\(push.topic)", "push.collapse_id": "\(push.collapseID ?? "")",
        ]
    }

    /// A push that --dry-run does not send, with its payload.
    static func dryRun(_ push: Push, _ logger: Logger) {
        var metadata = Self.metadata(push)
        metadata["push.payload"] = "\(push.payloadText)"
        metadata["push.at"] = "\(ISO8601.format(push.createdAt))"
        logger.info("push (dry run)", metadata: metadata)
    }

    /// A print that ended, as the history records it.
    static func printEnded(_ print: PrintRecord, _ logger: Logger) {
        var metadata: Logger.Metadata = [
            "printer.prefix": "\(print.printer)", "print.outcome": "\(print.outcome.rawValue)",
            "print.duration_seconds": .stringConvertible(print.durationSeconds),
        ]
        if let file = print.file { metadata["print.file"] = "\(file)" }
        if let reason = print.reason { metadata["print.reason"] = "\(reason)" }
        logger.info("print ended: \(print.outcome.rawValue)", metadata: metadata)
    }

    /// How a push ended at APNs.
    static func outcome(_ push: Push, _ outcome: PushOutcome, _ logger: Logger) {
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

import APNsClient
