import HomeAssistantLink
import Logging
import PrintBridgeCore

/// The log records about the Home Assistant connection (`run` and
/// `record`): a fixed message, the data in metadata.
public enum LinkNews {
    /// Logs a link event that is news (connected, disconnected, a protocol
    /// notice); other events are not logged here.
    public static func log(_ event: LinkEvent, endpoint: HAEndpoint, _ logger: Logger) {
        switch event {
        case .connected:
            logger.info("connected to Home Assistant", metadata: ["ha.url": "\(endpoint)"])
        case .disconnected(let cause):
            var metadata: Logger.Metadata = ["ha.url": "\(endpoint)", "ha.reason": "\(cause)"]
            if let hint = hint(cause, endpoint) { metadata["ha.hint"] = "\(hint)" }
            // Our own stop is news, not a problem.
            logger.log(level: cause == .shuttingDown ? .info : .warning, "disconnected from Home Assistant", metadata: metadata)
        case .notice(let notice):
            log(notice, logger)
        case .printers, .bulkHandled, .received:
            break
        }
    }

    static func log(_ notice: HASession.Notice, _ logger: Logger) {
        switch notice {
        case .authenticated(let version):
            logger.info("authenticated with Home Assistant", metadata: ["ha.version": "\(version ?? "")"])
        case .authRejected(let message):
            logger.error(
                "Home Assistant rejected the access token; check HA_TOKEN / HA_TOKEN_FILE; trying again in 5 minutes",
                metadata: ["ha.message": "\(message ?? "auth_invalid")"])
        case .live:
            logger.info("subscribed to state changes")
        case .watching(let entities) where entities == 0:
            logger.warning(
                "Home Assistant's entity registry names no printer entity; asking for none until one is added",
                metadata: ["ha.entities": .stringConvertible(0)])
        case .watching(let entities):
            logger.info("asked Home Assistant for the printers' entities only", metadata: ["ha.entities": .stringConvertible(entities)])
        case .watchingEveryStateChange(let version, let command, let code):
            logger.warning(
                "Home Assistant cannot send only the printers' entities; receiving every state change of the house instead",
                metadata: [
                    "ha.version": "\(version ?? "unknown")", "ha.command": "\(command)", "ha.code": "\(code ?? "")",
                    "ha.hint": "Home Assistant 2023.3 or later sends only what PrintBridge asks for",
                ])
        case .requestFailed(let id, let code, let message):
            logger.warning("a Home Assistant request failed", metadata: [
                "ha.request_id": .stringConvertible(id), "ha.code": "\(code ?? "")", "ha.message": "\(message ?? "")",
            ])
        case .pongMissing:
            logger.warning("no pong from Home Assistant; reconnecting")
        case .reconnectScheduled(let seconds, let attempt):
            logger.info("reconnecting to Home Assistant", metadata: [
                "reconnect.in_seconds": .stringConvertible(Int(seconds.rounded(.up))),
                "reconnect.attempt": .stringConvertible(attempt),
            ])
        case .serviceCallEnded:
            break  // the link hands it to its caller, who logs the action
        }
    }

    /// What to check when a wss:// connection fails in TLS.
    static func hint(_ cause: DisconnectCause, _ endpoint: HAEndpoint) -> String? {
        guard endpoint.secure, cause.isTLSFailure else { return nil }
        return "HA's certificate could not be verified with the system's CA certificates; "
            + "for a self-signed certificate, name its CA in HA_CA_FILE"
    }
}
