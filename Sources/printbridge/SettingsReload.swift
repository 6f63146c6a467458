import AgentSettings
import Logging
import PrintBridgeCore
import Synchronization

/// SIGHUP for `run`: the settings file is read again without touching the
/// HA connection, and the new settings are compared with those in use. What
/// and when to notify (the planner's settings) applies at once; a change to
/// any other setting is named in a warning, to apply at the next restart.
final class SettingsReload: Sendable {
    private let current: Mutex<Settings>
    private let logger: Logger

    init(_ settings: Settings, logger: Logger) {
        current = Mutex(settings)
        self.logger = logger
    }

    /// The new planner settings, or nil (kept as they were) when there is no
    /// file or it is bad; either way one log line says what happened.
    func reread() -> PlannerConfiguration? {
        let previous = current.withLock { $0 }
        guard let path = previous.file?.path else {
            logger.info("SIGHUP: no settings file in use (--config / PRINTBRIDGE_CONFIG); devices re-read")
            return nil
        }
        let next: Settings
        do { next = try previous.reread() } catch {
            logger.error("settings file not re-read, keeping the previous settings",
                         metadata: ["config.path": "\(path)", "error": "\(error)"])
            return nil
        }
        if let problem = next.problems(in: [.planner]).first {
            logger.error("settings file not re-read, keeping the previous settings: a value is invalid",
                         metadata: ["config.path": "\(path)", "error": "\(next.line(for: problem))"])
            return nil
        }
        current.withLock { $0 = next }
        let changed = previous.changes(to: next)
        for setting in changed where !setting.appliesLive {
            logger.warning("a setting changed in the settings file; restart printbridge to apply it",
                           metadata: ["config.setting": "\(setting.name.lowercased())"])
        }
        var configuration = next.planner
        configuration.bundleID = previous.planner.bundleID  // the APNs topic: the sender's, until a restart
        logger.info("settings re-read", metadata: [
            "config.path": "\(path)", "config.changed": "\(changed.map { $0.name.lowercased() }.joined(separator: ","))",
            "planner.milestones": "\(configuration.milestones.map(String.init).joined(separator: ","))",
            "planner.live_activity_interval": "\(configuration.liveActivityInterval)",
        ])
        return configuration
    }
}
