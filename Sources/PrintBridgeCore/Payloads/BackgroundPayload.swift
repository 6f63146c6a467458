/// The body of a silent background push (`apns-push-type: background`):
/// `aps` holds `content-available: 1` and nothing else (no alert, sound or
/// badge: Apple's "Pushing background updates to your app"), and a small
/// `printerState` tells the app what to refresh.
///
/// ```json
/// {"aps":{"content-available":1},
///  "printerState":{"type":"print_history","prefix":"x1c_…","status":"complete",
///                  "outcome":"complete","printId":"x1c_…-1764151200"}}
/// ```
public struct BackgroundPayload: Encodable, Hashable, Sendable {
    public struct APS: Encodable, Hashable, Sendable {
        public var contentAvailable = 1

        enum CodingKeys: String, CodingKey {
            case contentAvailable = "content-available"
        }
    }

    public struct PrinterState: Encodable, Hashable, Sendable {
        /// `print_history`: a print ended and the history has its record.
        public var type: String
        public var prefix: String
        /// The printer's status the print ended with (`complete`, `failed`,
        /// `cancelled`; `idle` or `preparing` for an abandoned print).
        public var status: String
        /// The history's outcome: complete, failed, cancelled, abandoned.
        public var outcome: String
        /// The history record's id (`printId` in `GET /api/printers/{prefix}/history`).
        public var printId: String
    }

    public var aps = APS()
    public var printerState: PrinterState

    /// The push for a print that ended with `record`.
    public init(record: PrintRecord, status: PrintStatus) {
        printerState = PrinterState(
            type: "print_history", prefix: record.printer, status: status.rawValue,
            outcome: record.outcome.rawValue, printId: record.printID)
    }

    /// The JSON body (a few hundred bytes at most: a prefix and an id).
    public func encoded() throws(PayloadError) -> [UInt8] {
        let bytes = PayloadEncoding.encode(self)
        guard bytes.count <= PayloadLimits.maximumPayloadBytes else { throw PayloadError(bytes: bytes.count) }
        return bytes
    }
}
