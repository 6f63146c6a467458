import Logging
import PrintBridgeCore

/// SIGHUP for `run`: the settings file is read again without touching the
/// HA connection. What and when to notify (MILESTONES,
/// LIVE_ACTIVITY_INTERVAL) applies at once; settings that belong to a
/// connection or the API are named in a warning, to apply at the next restart.
enum SettingsReload {
    static let appliedLive: Set<String> = [
        "MILESTONES", "LIVE_ACTIVITY_INTERVAL", "START_SETTLE", "CANCEL_WINDOW", "FLICKER_WINDOW",
        "REASON_WINDOW", "BED_COOLED_BELOW", "ALERT_LANGUAGE",
    ]

    /// The new planner settings, or nil (kept as they were) when there is no
    /// file or it is bad; either way one log line says what happened.
    static func reread(planner current: PlannerConfiguration, logger: Logger) -> PlannerConfiguration? {
        guard let previous = ConfigFile.current.withLock({ $0 }) else {
            logger.info("SIGHUP: no settings file in use (--config / PRINTBRIDGE_CONFIG); devices re-read")
            return nil
        }
        let before = ConfigFile.effectiveValues()
        let file: ConfigFile
        do { file = try ConfigFile.load(path: previous.path) } catch {
            logger.error("settings file not re-read, keeping the previous settings",
                         metadata: ["config.path": "\(previous.path)", "error": "\(error)"])
            return nil
        }
        ConfigFile.current.withLock { $0 = file }
        let configuration: PlannerConfiguration
        do {
            configuration = try ReplayCommand.plannerConfiguration(
                bundleID: current.bundleID, milestones: nil, liveActivityInterval: nil)
        } catch {
            ConfigFile.current.withLock { $0 = previous }
            logger.error("settings file not re-read, keeping the previous settings: a value is invalid",
                         metadata: ["config.path": "\(previous.path)", "error": "\(error)"])
            return nil
        }
        let after = ConfigFile.effectiveValues()
        let changed = ConfigFile.settings.map(\.name).filter { before[$0] != after[$0] }
        for name in changed where !appliedLive.contains(name) {
            logger.warning("a setting changed in the settings file; restart printbridge to apply it",
                           metadata: ["config.setting": "\(name.lowercased())"])
        }
        let milestones = configuration.milestones.map(String.init).joined(separator: ",")
        logger.info("settings re-read", metadata: [
            "config.path": "\(file.path)", "config.changed": "\(changed.map { $0.lowercased() }.joined(separator: ","))",
            "planner.milestones": "\(milestones)",
            "planner.live_activity_interval": "\(configuration.liveActivityInterval)",
        ])
        return configuration
    }
}
