import ControlAPI
import HomeAssistantLink
import Logging
import PrintBridgeCore

/// The app's printer actions for `run`: a button pressed through the HA
/// link (`button.press` on the printer's own button entity), and a log
/// line for each action asked.
enum PrinterActionSetup {
    static func presser(_ link: HomeAssistantLink) -> ButtonPresser {
        { action, prefix, done in
            guard let entity = link.button(action, printer: prefix) else { return done(.noButton) }
            link.callService(domain: "button", service: "press", entityID: entity) { done(.called(entityID: entity, $0)) }
        }
    }

    /// Who asked for what and how it ended: info when the button was
    /// pressed, a warning otherwise.
    static func log(_ logger: Logger) -> @Sendable (ActionReport) -> Void {
        { report in
            var metadata: Logger.Metadata = [
                "action": "\(report.action)", "printer": "\(report.printer)", "action.result": "\(report.result)",
                "http.status": .stringConvertible(report.status), "api.caller": "\(report.caller)",
            ]
            if !report.peer.isEmpty { metadata["api.peer"] = "\(report.peer)" }
            if let entity = report.entityID { metadata["ha.entity_id"] = "\(entity)" }
            if let message = report.message { metadata["ha.message"] = "\(message)" }
            if report.result == "pressed" {
                logger.info("printer action", metadata: metadata)
            } else {
                logger.warning("printer action not done", metadata: metadata)
            }
        }
    }
}
