import Logging

/// The logging set-up for the long-running commands.
public enum LogSetup {
    public enum Format: String, Sendable { case json, text }

    /// LOG_FORMAT: json or text; when unset, text on a terminal, else json.
    public static func format(_ text: String?, sink: LogSink = .standardOutput) -> Result<Format, SetupError> {
        guard let text else { return .success(sink.isTerminal ? .text : .json) }
        guard let format = Format(rawValue: text.lowercased()) else {
            return .failure(SetupError(description: "LOG_FORMAT must be json or text"))
        }
        return .success(format)
    }

    /// LOG_LEVEL: trace…critical; info when unset.
    public static func level(_ text: String?) -> Result<Logger.Level, SetupError> {
        guard let text else { return .success(.info) }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            return .failure(SetupError(description: "LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical"))
        }
        return .success(level)
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
