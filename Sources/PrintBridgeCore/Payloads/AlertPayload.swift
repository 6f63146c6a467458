/// The alert push body, shaped as the seed server sent it and the app reads it:
/// `aps.alert` {title, body}, `sound`, `thread-id` = printer prefix, and the
/// custom `printerState` the app parses from `userInfo`.
public struct AlertPayload: Encodable, Hashable, Sendable {
    public struct APS: Encodable, Hashable, Sendable {
        public struct Alert: Encodable, Hashable, Sendable {
            public var title: String
            public var body: String
        }

        public var alert: Alert
        public var sound: String
        public var threadID: String

        enum CodingKeys: String, CodingKey {
            case alert, sound
            case threadID = "thread-id"
        }
    }

    /// The seed's `PrinterNotificationPayload` subset the app reads.
    public struct PrinterState: Encodable, Hashable, Sendable {
        /// print_started, print_complete, print_failed, print_paused,
        /// print_cancelled, progress_milestone.
        public var type: String
        public var prefix: String
        public var progress: Int
        public var status: String
        public var filename: String?
    }

    public var aps: APS
    public var printerState: PrinterState
    private let inputs: Inputs

    private struct Inputs: Hashable, Sendable {
        var event: Push.Event
        var prefix: String
        var printerName: String
        var fileName: String?
        var status: PrintStatus
        var progress: Int
        var milestone: Int?
    }

    enum CodingKeys: String, CodingKey {
        case aps, printerState
    }

    /// The alert for `event` on a printer. `milestone` is the crossed
    /// percentage for milestone alerts.
    public init(
        event: Push.Event, prefix: String, printerName: String, fileName: String?,
        status: PrintStatus, progress: Int, milestone: Int? = nil
    ) {
        inputs = Inputs(
            event: event, prefix: prefix, printerName: printerName, fileName: fileName, status: status,
            progress: progress, milestone: milestone)
        let fileName = fileName.flatMap { $0.isEmpty ? nil : $0 }
        let file = fileName ?? "Print"
        let title: String
        let body: String
        let type: String
        switch event {
        case .started:
            (title, body, type) = ("Print Started", "\(file) started on \(printerName)", "print_started")
        case .complete:
            (title, body, type) = ("Print Complete! 🎉", "\(file) finished on \(printerName)", "print_complete")
        case .failed:
            (title, body, type) = ("Print Failed ⚠️", "\(file) failed on \(printerName)", "print_failed")
        case .cancelled:
            (title, body, type) = ("Print Cancelled", "\(file) was cancelled on \(printerName)", "print_cancelled")
        case .paused:
            (title, body, type) = ("Print Paused", "\(file) paused on \(printerName)", "print_paused")
        case .milestone:
            (title, body, type) = ("\(milestone ?? progress)% Complete", "\(file) on \(printerName)", "progress_milestone")
        case .update, .end, .start:
            (title, body, type) = ("Printer Update", "Update from \(printerName)", "printer_update")
        }
        aps = APS(alert: .init(title: title, body: body), sound: "default", threadID: prefix)
        printerState = PrinterState(
            type: type, prefix: prefix, progress: milestone ?? progress, status: status.rawValue,
            filename: fileName)
    }

    /// The JSON body, within APNs' 4096 bytes: an over-long file name is
    /// shortened (with "…") until it fits.
    public func encoded() throws(PayloadError) -> [UInt8] {
        try PayloadEncoding.fitting(fileName: inputs.fileName) { fileName in
            AlertPayload(
                event: inputs.event, prefix: inputs.prefix, printerName: inputs.printerName, fileName: fileName,
                status: inputs.status, progress: inputs.progress, milestone: inputs.milestone)
        }
    }
}

/// A payload that cannot be made to fit APNs' limits.
public struct PayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    public var bytes: Int
    public var description: String {
        "payload is \(bytes) bytes, over APNs' \(PayloadLimits.maximumPayloadBytes)-byte limit"
    }
}

/// Shared JSON encoding for payloads: sorted keys (stable output), no escaped slashes.
enum PayloadEncoding {
    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        // Encoding these plain value types cannot fail (no infinite numbers).
        (try? PayloadEncoder().encode(value)) ?? []
    }

    /// Encodes what `build` makes from `fileName`; if that is too big, builds
    /// again with the name cut shorter until it fits or there is nothing left to cut.
    static func fitting<T: Encodable>(fileName: String?, build: (String?) -> T) throws(PayloadError) -> [UInt8] {
        var bytes = encode(build(fileName))
        guard bytes.count > PayloadLimits.maximumPayloadBytes else { return bytes }
        if let fileName {
            for limit in [512, 128, 32, 8] where fileName.count > limit {
                bytes = encode(build(String(fileName.prefix(limit)) + "…"))
                if bytes.count <= PayloadLimits.maximumPayloadBytes { return bytes }
            }
        }
        throw PayloadError(bytes: bytes.count)
    }
}
