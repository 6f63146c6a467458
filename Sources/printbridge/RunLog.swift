import AgentSettings
import Logging
import PrintBridgeLogging

/// The log records `run` and `record` write, with their metadata.
enum RunLog {
    /// Sets up structured logging from LOG_FORMAT and LOG_LEVEL (exit 78 on a bad value).
    static func bootstrap(_ settings: Settings) throws -> Logger {
        try settings.check([.log])
        LogSetup.bootstrap(format: settings.log.format, level: settings.log.level)
        return Logger(label: "printbridge")
    }
}
