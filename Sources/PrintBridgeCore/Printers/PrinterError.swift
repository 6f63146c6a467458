/// One of a printer's current errors, as its integration lists them (the
/// integration's `readPrinterErrors`): a code, its text in Home Assistant's
/// language, how severe it is, and where to read more.
public struct PrinterError: Hashable, Sendable {
    /// The integration's code for the error (ha-bambulab's without `HMS_`:
    /// `0700_2000_0002_0001`).
    public var code: String
    public var text: String
    public var severity: Severity
    public var wikiURL: String?

    /// How severe an error is, most severe first.
    public enum Severity: String, Hashable, Sendable, Comparable {
        case fatal, serious, common, info, unknown

        /// Fatal and serious errors break through Focus (`time-sensitive`).
        public var isUrgent: Bool { self == .fatal || self == .serious }

        private var rank: Int {
            switch self {
            case .fatal: return 0
            case .serious: return 1
            case .common: return 2
            case .info: return 3
            case .unknown: return 4
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public init(code: String, text: String, severity: Severity, wikiURL: String? = nil) {
        self.code = code
        self.text = text
        self.severity = severity
        self.wikiURL = wikiURL
    }
}
