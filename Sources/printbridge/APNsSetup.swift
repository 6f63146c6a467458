import AgentSettings
import APNsClient
import ArgumentParser
import PrintBridgeCore

/// Loads the APNs key and makes a sender from the settings: the shared
/// start of `run`, `check-config`, `send-test` and `replay --send`.
enum APNsSetup {
    /// A ready sender, or exit 78 with one clear line on stderr.
    /// - Parameter forRun: `run` and `check-config`: a missing setting also
    ///   names DRY_RUN, the way to start without APNs.
    static func sender(
        _ settings: Settings, forRun: Bool = false,
        onTokenRejected: @escaping APNsSender.TokenRejection = reportRejection,
        onConnectionReplaced: (@Sendable (Int) -> Void)? = nil
    ) throws -> APNsSender {
        let configuration: APNsConfiguration
        switch settings.apns.configuration {
        case .success(let value): configuration = value
        case .failure(let problem):
            throw CommandFailure.config(settings.line(for: problem) + (forRun ? "; or set DRY_RUN to true to run without sending" : ""))
        }
        do throws(any Error) {
            let key = try APNsSigningKey(path: configuration.keyPath)
            var options = HTTP2Client.Options()
            options.onConnectionReplaced = onConnectionReplaced
            return try APNsSender(
                configuration: configuration, key: key, client: try HTTP2Client(configuration: configuration, options: options),
                onTokenRejected: onTokenRejected)
        } catch {
            throw CommandFailure.config(settings.naming("\(error)"))
        }
    }

    /// The default reaction to a refused token outside the daemon: say so.
    static let reportRejection: APNsSender.TokenRejection = { push, action, reason in
        let what = action == .remove ? "should be deleted" : "should be disabled"
        let advice = reason.advice.map { ": \($0)" } ?? ""
        StandardStreams.err("printbridge: token \(push.shortToken) \(what) (\(reason))\(advice)")
    }

    /// One JSON line for a push's outcome.
    static func outcomeLine(_ push: Push, _ outcome: PushOutcome) -> String {
        var line = JSONText.Object(capacity: 256)
        line.string("at", ISO8601.format(push.createdAt))
        line.string("printer", push.printerPrefix)
        line.string("event", push.event.rawValue)
        line.string("device", push.shortToken)
        line.string("push_type", push.kind.rawValue)
        line.string("outcome", outcome.name)
        switch outcome {
        case .delivered(let id):
            line.string("apns_id", id)
        case .rejected(let status, let reason, let action):
            line.encoded("status", String(status))
            line.string("reason", reason.text)
            if let action { line.string("token_action", action.rawValue) }
        case .gaveUp(let cause, let attempts):
            line.string("reason", cause.description)
            line.encoded("attempts", String(attempts))
        }
        return line.text()
    }
}
