/// An alert an automation in Home Assistant sends through the agent
/// (issue 53): a `printbridge_notify` event on HA's bus, as any automation
/// fires one (`event: printbridge_notify` with `event_data`; HA's
/// homeassistant/helpers/script.py `_async_event_step` fires it with
/// `hass.bus.async_fire`), which the agent subscribes to as it does to
/// integrations' own events (`subscribe_events`, HASession+Watching).
///
/// ```yaml
/// - event: printbridge_notify
///   event_data:
///     printer: x1c_00m09a350100123   # the printer's prefix (or its name)
///     title: Smoke by the printer
///     message: The smoke sensor in the workshop went off.
///     level: time-sensitive          # optional: passive, active (default), time-sensitive
/// ```
public struct NotifyRequest: Hashable, Sendable {
    public static let eventType = "printbridge_notify"

    public enum Level: String, Hashable, Sendable, CaseIterable {
        case passive, active
        case timeSensitive = "time-sensitive"
    }

    /// The printer as the automation named it (a prefix or a name).
    public var printer: String
    public var title: String
    public var message: String
    public var level: Level

    public init(printer: String, title: String, message: String, level: Level = .active) {
        self.printer = printer
        self.title = title
        self.message = message
        self.level = level
    }

    /// The most either text may take in the alert's JSON, in bytes (UTF-8,
    /// escapes counted: a quote is 2): an alert is 4,096 bytes in all, so
    /// 1,000 Cyrillic letters (2,000 bytes) are too many, 500 fit.
    public static let maximumText = 1000

    /// What `text` takes inside a JSON string.
    static func jsonBytes(_ text: String) -> Int { JSONText.quoted(text).utf8.count - 2 }

    /// The longest `printer` read (a prefix or a name).
    public static let maximumPrinter = 128

    /// Reads an event's data; a problem is said in words (for the log),
    /// nothing is guessed.
    public static func read(_ data: [String: JSONValue]) -> Result<NotifyRequest, Problem> {
        guard let printer = data["printer"]?.stringValue, !printer.isEmpty else {
            return .failure(Problem(text: "printbridge_notify needs `printer` (the printer's prefix or name)"))
        }
        // Said in the log as given: no longer than a printer's name can be, on one line.
        guard printer.utf8.count <= maximumPrinter, !printer.contains(where: \.isNewline) else {
            return .failure(Problem(text: "printbridge_notify's `printer` must be one line of at most \(maximumPrinter) bytes"))
        }
        let title = data["title"]?.stringValue ?? ""
        guard let message = data["message"]?.stringValue, !message.isEmpty else {
            return .failure(Problem(text: "printbridge_notify for \(printer) needs `message`"))
        }
        guard jsonBytes(title) <= maximumText, jsonBytes(message) <= maximumText else {
            return .failure(Problem(
                text: "printbridge_notify for \(printer): title and message must be at most \(maximumText) bytes each (UTF-8, as JSON)"))
        }
        var level = Level.active
        if let given = data["level"] {
            guard let text = given.stringValue, let known = Level(rawValue: text) else {
                return .failure(Problem(text: "printbridge_notify for \(printer): level must be passive, active or time-sensitive"))
            }
            level = known
        }
        return .success(NotifyRequest(printer: printer, title: title, message: message, level: level))
    }

    public struct Problem: Error, Hashable, Sendable {
        public var text: String
    }
}
