import Logging

/// The logging set-up for the long-running commands.
public enum LogSetup {
    public enum Format: String, Sendable { case json, text }

    /// LOG_FORMAT (json|text; default: text on a terminal, else json) and
    /// LOG_LEVEL (trace…critical; default info). Nil plus a reason when a value is wrong.
    public static func resolve(format: String?, level: String?, sink: LogSink = .standardOutput)
        -> Result<(Format, Logger.Level), SetupError>
    {
        let chosenFormat: Format
        if let format {
            guard let value = Format(rawValue: format.lowercased()) else {
                return .failure(SetupError(description: "LOG_FORMAT must be json or text"))
            }
            chosenFormat = value
        } else {
            chosenFormat = sink.isTerminal ? .text : .json
        }
        var chosenLevel = Logger.Level.info
        if let level {
            guard let value = Logger.Level(rawValue: level.lowercased()) else {
                return .failure(SetupError(description: "LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical"))
            }
            chosenLevel = value
        }
        return .success((chosenFormat, chosenLevel))
    }

    /// Bootstraps swift-log once for the process.
    public static func bootstrap(format: Format, level: Logger.Level, sink: LogSink = .standardOutput) {
        LoggingSystem.bootstrap { _ in
            LineLogHandler(format: format, sink: sink, level: level)
        }
    }

    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }
}
