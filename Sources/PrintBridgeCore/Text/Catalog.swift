/// Every text an alert can carry, in one language. The texts live in
/// `Catalog/<language>.json`, one file per language, compiled into the
/// binary (SwiftPM's `embedInCode`, so a deployment has nothing to find at
/// run time). English is the seed's exact wording and the default; a
/// language without a text for a key falls back to English's.
public struct Catalog: Hashable, Sendable {
    /// The language's tag, as in the file (`en`, `de`).
    public let language: String
    /// The language's own name for itself ("Deutsch").
    public let name: String
    public let numbers: Numbers
    let texts: [String: MessageFormat]

    /// How a language writes numbers and picks plural forms.
    public struct Numbers: Hashable, Sendable {
        public var decimalSeparator: String
        /// CLDR's rule for the `one` category: `n = 1` (English, German,
        /// Spanish) or `i = 0,1` (French: 0 and 1.5 are singular too).
        public var oneIncludesZero: Bool

        public func pluralCategory(_ value: Double) -> String {
            if oneIncludesZero { return value >= 0 && value < 2 ? "one" : "other" }
            return value == 1 ? "one" : "other"
        }

        /// `value` with at most `decimals` fraction digits, trailing zeros dropped.
        public func format(_ value: Double, decimals: Int = 0) -> String {
            // Beyond what any alert holds (and what Int could): plain digits.
            guard value.isFinite, abs(value) < 1e12 else { return value.isFinite ? "\(value)" : "?" }
            var scale = 1.0
            for _ in 0..<max(0, decimals) { scale *= 10 }
            let scaled = (abs(value) * scale).rounded()
            let whole = Int(scaled / scale)
            var fraction = Int(scaled - Double(whole) * scale)
            var digits = max(0, decimals)
            while digits > 0, fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            let sign = value < 0 && scaled > 0 ? "-" : ""
            guard digits > 0 else { return "\(sign)\(whole)" }
            var text = String(fraction)
            text = String(repeating: "0", count: digits - text.count) + text
            return "\(sign)\(whole)\(decimalSeparator)\(text)"
        }
    }

    /// The keys every catalog has (English has them all; tests hold the
    /// others to it).
    public enum Key: String, CaseIterable, Sendable {
        case startedTitle = "started.title", startedBody = "started.body"
        case completeTitle = "complete.title", completeBody = "complete.body"
        case failedTitle = "failed.title", failedBody = "failed.body"
        case cancelledTitle = "cancelled.title", cancelledBody = "cancelled.body"
        case pausedTitle = "paused.title", pausedBody = "paused.body"
        case milestoneTitle = "milestone.title", milestoneBody = "milestone.body"
        case unnamedFile = "file.unnamed"
        case printerErrorTitle = "printer_error.title", printerErrorUnknown = "printer_error.unknown"
        case bedCooledTitle = "bed_cooled.title", bedCooledBody = "bed_cooled.body"
        case resumedTitle = "resumed.title", resumedBody = "resumed.body"
        case offlineTitle = "offline.title", offlineBody = "offline.body"
        case backOnlineTitle = "back_online.title", backOnlineBody = "back_online.body"
        case reasonOffline = "reason.offline"
        case reasonWithLocation = "reason.with_location"
        case locationAMS = "location.ams", locationAMSLite = "location.ams_lite", locationAMSHT = "location.ams_ht"
        case locationExternal = "location.external"
        case testTitle = "test.title", testBody = "test.body"
        case firstLayerTitle = "first_layer.title", firstLayerBody = "first_layer.body"
        case summaryFirstLayer = "summary.first_layer"
        case minutesLeftTitle = "minutes_left.title", minutesLeftBody = "minutes_left.body"
        // The quiet hours' summary (`QuietSummary`).
        case summaryTitle = "summary.title", summaryLine = "summary.line", summaryMore = "summary.more"
        case summaryStarted = "summary.started", summaryComplete = "summary.complete", summaryFailed = "summary.failed"
        case summaryCancelled = "summary.cancelled", summaryPaused = "summary.paused", summaryResumed = "summary.resumed"
        case summaryMilestone = "summary.milestone", summaryPrinterError = "summary.printer_error"
        case summaryBedCooled = "summary.bed_cooled", summaryOffline = "summary.offline"
        case summaryBackOnline = "summary.back_online", summaryWithReason = "summary.with_reason"
        case summaryThenResumed = "summary.then_resumed", summaryThenBackOnline = "summary.then_back_online"
    }

    /// The languages there are catalogs for, by tag.
    public static var all: [String: Catalog] {
        Dictionary(uniqueKeysWithValues: languages.map { ($0, forLanguage($0)!) })
    }

    /// The tags of the languages there are catalogs for.
    public static let languages = ["de", "en", "es", "fr"]

    // Each catalog is read the first time it is asked for: the agent needs
    // one language, and reading all four at start-up cost ~4.7 million
    // instructions (callgrind, the sender benchmark's start-up).
    private static let en = load("en.json", PackageResources.en_json)
    private static let de = load("de.json", PackageResources.de_json)
    private static let fr = load("fr.json", PackageResources.fr_json)
    private static let es = load("es.json", PackageResources.es_json)

    private static func load(_ file: String, _ bytes: [UInt8]) -> Catalog {
        do {
            return try Catalog(json: bytes)
        } catch {
            // The files are part of the build and checked by CatalogTests.
            preconditionFailure("Catalog/\(file): \(error)")
        }
    }

    public static var english: Catalog { en }

    /// The catalog for a language tag: `de`, `de-AT`, `de_CH` and `DE` are
    /// German; nil when there is none for that language.
    public static func forLanguage(_ tag: String?) -> Catalog? {
        guard let tag else { return nil }
        switch tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map({ $0.lowercased() }) {
        case "en": return en
        case "de": return de
        case "fr": return fr
        case "es": return es
        default: return nil
        }
    }

    /// Whether `tag` looks like a language tag (BCP 47's shape: letters,
    /// then subtags of letters and digits).
    public static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return false
        }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    public struct FormatError: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Reads a catalog file: `{language, name, decimalSeparator, pluralRule, texts}`.
    init(json bytes: [UInt8]) throws(FormatError) {
        guard let root = try? JSONParser.parse(bytes), let object = root.objectValue else {
            throw FormatError(description: "not a JSON object")
        }
        guard let language = object["language"]?.stringValue, Self.isLanguageTag(language) else {
            throw FormatError(description: "\"language\" must be a language tag")
        }
        guard let separator = object["decimalSeparator"]?.stringValue, !separator.isEmpty else {
            throw FormatError(description: "\"decimalSeparator\" is missing")
        }
        let rule = object["pluralRule"]?.stringValue
        guard rule == "one: n = 1" || rule == "one: i = 0,1" else {
            throw FormatError(description: "\"pluralRule\" must be \"one: n = 1\" or \"one: i = 0,1\"")
        }
        guard let texts = object["texts"]?.objectValue else { throw FormatError(description: "\"texts\" is missing") }
        var formats: [String: MessageFormat] = [:]
        for (key, value) in texts {
            guard let text = value.stringValue else { throw FormatError(description: "\(key) is not a string") }
            do throws(MessageFormat.SyntaxError) {
                formats[key] = try MessageFormat(text)
            } catch {
                throw FormatError(description: "\(key): \(error)")
            }
        }
        self.language = language
        self.name = object["name"]?.stringValue ?? language
        self.numbers = Numbers(decimalSeparator: separator, oneIncludesZero: rule == "one: i = 0,1")
        self.texts = formats
    }

    /// Every key this catalog has.
    public var keys: Set<String> { Set(texts.keys) }

    /// The argument names the text for `key` uses.
    public func argumentNames(_ key: String) -> Set<String> { texts[key]?.argumentNames ?? [] }

    /// The text for `key` with its arguments, else English's, else nil.
    public func text(_ key: String, _ arguments: [String: CatalogArgument] = [:]) -> String? {
        guard let format = texts[key] ?? (language == "en" ? nil : Self.english.texts[key]) else { return nil }
        return format.format(arguments, language: numbers)
    }

    public func text(_ key: Key, _ arguments: [String: CatalogArgument] = [:]) -> String {
        text(key.rawValue, arguments) ?? key.rawValue
    }
}
