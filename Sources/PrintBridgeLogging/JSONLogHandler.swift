import Logging
import PrintBridgeCore

/// One JSON object per log line: `timestamp`, `level`, `message`, then the
/// metadata with dot-separated keys (`printer.prefix`, `apns.status`), sorted.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let sink: LogSink
    private let clock: any EpochClock

    public init(sink: LogSink = .standardOutput, level: Logger.Level = .info, clock: any EpochClock = SystemClock()) {
        self.sink = sink
        self.logLevel = level
        self.clock = clock
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var members: [(String, String)] = [
            ("timestamp", JSONText.quoted(ISO8601.format(clock.now()))),
            ("level", JSONText.quoted(event.level.rawValue)),
            ("message", JSONText.quoted(event.message.description)),
        ]
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        for (key, value) in Self.flatten(merged).sorted(by: { $0.key < $1.key }) {
            members.append((key, value))
        }
        sink.write(JSONText.object(members))
    }

    /// Nested metadata dictionaries become dotted keys; values JSON text.
    static func flatten(_ metadata: Logger.Metadata, prefix: String = "") -> [String: String] {
        var flat: [String: String] = [:]
        for (key, value) in metadata {
            let name = prefix.isEmpty ? key : prefix + "." + key
            switch value {
            case .string(let text): flat[name] = JSONText.quoted(text)
            case .stringConvertible(let value): flat[name] = JSONText.quoted(value.description)
            case .array(let values): flat[name] = "[" + values.map { JSONText.quoted($0.description) }.joined(separator: ",") + "]"
            case .dictionary(let nested): flat.merge(flatten(nested, prefix: name)) { $1 }
            }
        }
        return flat
    }
}

/// A line for people: time, level, message, then key=value pairs.
public struct TextLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let sink: LogSink
    private let clock: any EpochClock

    public init(sink: LogSink = .standardOutput, level: Logger.Level = .info, clock: any EpochClock = SystemClock()) {
        self.sink = sink
        self.logLevel = level
        self.clock = clock
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let pairs = JSONLogHandler.flatten(merged).sorted { $0.key < $1.key }.map { key, value in
            let text = value.hasPrefix("\"") ? String(value.dropFirst().dropLast()) : value
            return "\(key)=\(text.contains(" ") ? "\"\(text)\"" : text)"
        }
        let level = event.level.rawValue.padding(toLength: 7)
        sink.write("\(ISO8601.format(clock.now())) \(level) \(event.message)" + (pairs.isEmpty ? "" : "  " + pairs.joined(separator: " ")))
    }
}

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
            switch format {
            case .json: return JSONLogHandler(sink: sink, level: level)
            case .text: return TextLogHandler(sink: sink, level: level)
            }
        }
    }

    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }
}

extension String {
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
