import Logging
import PrintBridgeCore
import PrintBridgeLogging

/// The settings of the agent itself: delivery, logs, state, the planner.
extension Settings {
    /// How pushes go out, how long what was sent is kept, and how health is judged.
    public struct Delivery: Sendable {
        /// DRY_RUN: print the pushes instead of sending them.
        public let dryRun: Bool
        /// APNS_RETRY_MAX: seconds at most between retries.
        public let retryMaximum: Double
        /// HEALTH_HA_GRACE: seconds HA may be away before /healthz is 503.
        public let healthGrace: Double
        /// NOTIFICATION_HISTORY_DAYS: days the alerts sent to each phone are
        /// kept for the app's history (30); 0: none is recorded.
        public let notificationHistoryDays: Int

        /// The longest NOTIFICATION_HISTORY_DAYS: ten years.
        public static let notificationHistoryDaysLimit = 3650

        /// PRINT_HISTORY_DAYS: days each ended print is kept in the history
        /// and the statistics one by one; older prints are rolled up into
        /// daily figures, which the statistics keep. 0 (the default): keep
        /// every print.
        public let printHistoryDays: Int
        /// PRINT_HISTORY_DAYS in seconds; 0: keep every print.
        public var printRetention: Double { Double(printHistoryDays) * 86400 }

        /// SNAPSHOTS: a picture of the print in complete, failed, paused and
        /// printer-error alerts, when the printer has a camera (true).
        public let snapshots: Bool
        /// SNAPSHOT_TIMEOUT: seconds an alert waits for its picture at most (3).
        public let snapshotTimeout: Double
        /// SNAPSHOT_LINK_HOURS: hours a picture and its link live (24).
        public let snapshotLinkHours: Double
        /// SNAPSHOT_FOLDER_MB: megabytes the pictures may take on disk (100).
        public let snapshotFolderMB: Double

        /// NOTIFICATION_HISTORY_DAYS in seconds.
        public var notificationRetention: Double { Double(notificationHistoryDays) * 86400 }

        init(_ reader: inout SettingReader) {
            retryMaximum = reader.positiveNumber("APNS_RETRY_MAX", .delivery) ?? 30
            dryRun = reader.flag("DRY_RUN", .delivery) ?? false
            healthGrace = reader.positiveNumber("HEALTH_HA_GRACE", .delivery) ?? 60
            var days = 30
            if let text = reader.text("NOTIFICATION_HISTORY_DAYS") {
                if let value = Int(text.trimmingWhitespace), (0...Self.notificationHistoryDaysLimit).contains(value) {
                    days = value
                } else {
                    reader.problem(.delivery, "NOTIFICATION_HISTORY_DAYS", "NOTIFICATION_HISTORY_DAYS must be a whole "
                        + "number of days from 0 (keep none) to \(Self.notificationHistoryDaysLimit)")
                }
            }
            notificationHistoryDays = days
            var printDays = 0
            if let text = reader.text("PRINT_HISTORY_DAYS") {
                if let value = Int(text.trimmingWhitespace), (0...36_500).contains(value) {
                    printDays = value
                } else {
                    reader.problem(.delivery, "PRINT_HISTORY_DAYS", "PRINT_HISTORY_DAYS must be a whole number of days "
                        + "from 1 to 36500, or 0 to keep every print")
                }
            }
            printHistoryDays = printDays
            snapshots = reader.flag("SNAPSHOTS", .delivery) ?? true
            var timeout = reader.positiveNumber("SNAPSHOT_TIMEOUT", .delivery) ?? 3
            if timeout > 10 {
                // A Time Sensitive alert kept back longer is a late alert.
                reader.problem(.delivery, "SNAPSHOT_TIMEOUT", "SNAPSHOT_TIMEOUT must be at most 10 seconds")
                timeout = 3
            }
            snapshotTimeout = timeout
            snapshotLinkHours = reader.positiveNumber("SNAPSHOT_LINK_HOURS", .delivery) ?? 24
            snapshotFolderMB = reader.positiveNumber("SNAPSHOT_FOLDER_MB", .delivery) ?? 100
        }
    }

    /// Structured logs.
    public struct Log: Sendable {
        public let format: LogSetup.Format
        public let level: Logger.Level

        init(_ reader: inout SettingReader) {
            switch LogSetup.format(reader.text("LOG_FORMAT")) {
            case .success(let chosen): format = chosen
            case .failure(let error):
                format = .json
                reader.problem(.log, "LOG_FORMAT", error.description)
            }
            switch LogSetup.level(reader.text("LOG_LEVEL")) {
            case .success(let chosen): level = chosen
            case .failure(let error):
                level = .info
                reader.problem(.log, "LOG_LEVEL", error.description)
            }
        }
    }

    /// The state directory: STATE_DIR, else systemd's STATE_DIRECTORY, else
    /// /data inside a Home Assistant add-on, else ~/.local/state/printbridge.
    public struct StateLocation: Sendable {
        public let path: String
        /// The default under the home directory, which is created when first used.
        public let isDefault: Bool

        init(_ reader: inout SettingReader) {
            if let directory = reader.text("STATE_DIR") {
                (path, isDefault) = (directory, false)
            } else if let directory = reader.environment("STATE_DIRECTORY") {
                (path, isDefault) = (String(directory.split(separator: ":").first ?? Substring(directory)), false)
            } else if reader.environment("SUPERVISOR_TOKEN") != nil {
                (path, isDefault) = ("/data", false)
            } else {
                let base = reader.environment("XDG_STATE_HOME") ?? ((reader.environment("HOME") ?? ".") + "/.local/state")
                (path, isDefault) = (base + "/printbridge", true)
            }
        }
    }

    /// What and when to notify: APNS_BUNDLE_ID, MILESTONES, LIVE_ACTIVITY_INTERVAL,
    /// the pipeline's windows, BED_COOLED_BELOW and ALERT_LANGUAGE.
    static func planner(_ reader: inout SettingReader) -> PlannerConfiguration {
        var configuration = PlannerConfiguration()
        if let bundle = reader.text("APNS_BUNDLE_ID") { configuration.bundleID = String(bundle.trimmingWhitespace) }
        if let text = reader.text("MILESTONES") {
            let parts = text.split(separator: ",").map { String($0).trimming(" ") }
            let values = parts.compactMap { Int($0) }
            if values.count == parts.count {
                configuration.milestones = values
            } else {
                reader.problem(.planner, "MILESTONES", "MILESTONES must be whole percentages separated by commas, e.g. 25,50,75")
            }
        }
        for (name, field, what) in [
            ("LIVE_ACTIVITY_INTERVAL", \PlannerConfiguration.liveActivityInterval, "a number of seconds"),
            ("START_SETTLE", \.startSettle, "a number of seconds"), ("CANCEL_WINDOW", \.cancelWindow, "a number of seconds"),
            ("FLICKER_WINDOW", \.flickerWindow, "a number of seconds"), ("REASON_WINDOW", \.reasonWindow, "a number of seconds"),
            ("OFFLINE_WINDOW", \.offlineWindow, "a number of seconds"),
            ("BED_COOLED_BELOW", \.bedCooledBelow, "a temperature in °C"),
        ] {
            guard let text = reader.text(name) else { continue }
            if let value = Double(text) {
                configuration[keyPath: field] = value
            } else {
                reader.problem(.planner, name, "\(name) must be \(what)")
            }
        }
        if let language = reader.text("ALERT_LANGUAGE") { configuration.language = language }
        for problem in configuration.problems() { reader.problem(.planner, nil, problem) }
        return configuration
    }
}
