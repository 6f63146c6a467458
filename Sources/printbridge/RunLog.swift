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
            throw CommandFailure.config("\(error)")
        }
    }
}
