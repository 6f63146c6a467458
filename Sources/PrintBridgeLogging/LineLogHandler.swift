import Logging
import PrintBridgeCore

/// One log record per line, as JSON (`timestamp`, `level`, `message`, then
/// the metadata with dot-separated keys such as `printer.prefix`, sorted) or
/// as text for people (time, level, message, then key=value pairs).
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public let format: LogSetup.Format
    private let sink: LogSink
    private let clock: any EpochClock

    public init(
        format: LogSetup.Format, sink: LogSink = .standardOutput, level: Logger.Level = .info,
        clock: any EpochClock = SystemClock()
    ) {
        self.format = format
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
        let pairs = Self.flatten(merged).sorted { $0.key < $1.key }
        let time = ISO8601.format(clock.now())
        switch format {
        case .json:
            let members: [(String, String)] = [
                ("timestamp", JSONText.quoted(time)),
                ("level", JSONText.quoted(event.level.rawValue)),
                ("message", JSONText.quoted(event.message.description)),
            ]
            sink.write(JSONText.object(members + pairs.map { ($0.key, $0.value) }))
        case .text:
            let words = pairs.map { key, value in
                let text = value.hasPrefix("\"") ? String(value.dropFirst().dropLast()) : value
                return "\(key)=\(text.contains(" ") ? "\"\(text)\"" : text)"
            }
            let level = event.level.rawValue.padding(toLength: 7)
            sink.write("\(time) \(level) \(event.message)" + (words.isEmpty ? "" : "  " + words.joined(separator: " ")))
        }
    }

    /// Nested metadata dictionaries become dotted keys; values JSON text:
    /// integers, finite floating-point numbers and booleans given as
    /// `.stringConvertible` are JSON numbers and booleans (so
    /// `jq 'select(.["push.priority"] > 5)'` compares numbers), anything
    /// else a JSON string.
    static func flatten(_ metadata: Logger.Metadata, prefix: String = "") -> [String: String] {
        var flat: [String: String] = [:]
        for (key, value) in metadata {
            let name = prefix.isEmpty ? key : prefix + "." + key
            switch value {
            case .string(let text): flat[name] = JSONText.quoted(text)
            case .stringConvertible(let value): flat[name] = Self.jsonScalar(value)
            case .array(let values): flat[name] = "[" + values.map { JSONText.quoted($0.description) }.joined(separator: ",") + "]"
            case .dictionary(let nested): flat.merge(flatten(nested, prefix: name)) { $1 }
            }
        }
        return flat
    }

    static func jsonScalar(_ value: any CustomStringConvertible & Sendable) -> String {
        switch value {
        case let number as any BinaryInteger: return number.description
        case let number as Double where number.isFinite: return number.description
        case let flag as Bool: return flag ? "true" : "false"
        default: return JSONText.quoted(value.description)
        }
    }
}

extension String {
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
