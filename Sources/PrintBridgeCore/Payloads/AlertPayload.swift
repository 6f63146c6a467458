#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// The alert push body, shaped as the seed server sent it and the app reads it:
/// `aps.alert` {title, body}, `sound`, `thread-id` = printer prefix, and the
/// custom `printerState` the app parses from `userInfo`. Texts come from a
/// `Catalog` (English, the seed's exact wording, by default).
public struct AlertPayload: Encodable, Hashable, Sendable {
    public struct APS: Encodable, Hashable, Sendable {
        public struct Alert: Encodable, Hashable, Sendable {
            public var title: String
            public var body: String
        }

        public var alert: Alert
        /// `default`; nil (no key, no sound) for a quiet note.
        public var sound: String?
        public var threadID: String
        /// `time-sensitive` for a serious or fatal printer error, `passive`
        /// for a quiet note that replaces an earlier alert; nil otherwise
        /// (iOS's `active`).
        public var interruptionLevel: String?
        /// The notification category the app registered with the buttons
        /// that fit (`NotificationCategory`); nil: no buttons.
        public var category: String?

        enum CodingKeys: String, CodingKey {
            case alert, sound, category
            case threadID = "thread-id"
            case interruptionLevel = "interruption-level"
        }
    }

    /// The seed's `PrinterNotificationPayload` subset the app reads.
    public struct PrinterState: Encodable, Hashable, Sendable {
        /// print_started, print_complete, print_failed, print_paused,
        /// print_cancelled, progress_milestone; printer_error, bed_cooled,
        /// print_resumed, printer_offline, printer_back_online.
        public var type: String
        public var prefix: String
        public var progress: Int
        public var status: String
        public var filename: String?
        /// Why the print paused, failed or was cancelled, or the printer
        /// error's text, when the printer said (PrintBridge's addition; the
        /// app ignores keys it does not know).
        public var reason: String?
        /// The print the alert is about: its history record's id (`printId`
        /// in `GET /api/history`, as the silent push at its end says it), so
        /// a tap opens its entry. Absent for an alert about no print (a
        /// printer error while idle). PrintBridge's addition.
        public var printId: String?
    }

    /// What an alert is about beyond its event.
    public enum Detail: Hashable, Sendable {
        case none
        /// Why the print paused, failed or was cancelled.
        case reason(String)
        /// A printer error, told on its own.
        case printerError(PrinterError)
        /// The bed has cooled after a finish: its temperature and the minutes since.
        case bedCooled(temperature: Double, minutes: Int)
        /// An automation's own words (`printbridge_notify`), as given.
        case message(NotifyRequest)
        /// The minutes left the phone asked to hear of.
        case minutesLeft(Int)
    }

    public var aps: APS
    public var printerState: PrinterState
    private var inputs: Inputs

    private struct Inputs: Hashable, Sendable {
        var event: Push.Event
        var prefix: String
        var printerName: String
        var fileName: String?
        var status: PrintStatus
        var progress: Int
        var milestone: Int?
        var detail: Detail
        var catalog: Catalog
        var printID: String?
        /// Told already, audibly, by the phone's Live Activity (`quieted()`).
        var quiet = false
    }

    enum CodingKeys: String, CodingKey {
        case aps, printerState
    }

    /// The alert for `event` on a printer. `milestone` is the crossed
    /// percentage for milestone alerts; `printID` the print it is about.
    public init(
        event: Push.Event, prefix: String, printerName: String, fileName: String?,
        status: PrintStatus, progress: Int, milestone: Int? = nil, detail: Detail = .none, catalog: Catalog = .english,
        printID: String? = nil
    ) {
        inputs = Inputs(
            event: event, prefix: prefix, printerName: printerName, fileName: fileName, status: status,
            progress: progress, milestone: milestone, detail: detail, catalog: catalog, printID: printID)
        let fileName = fileName.flatMap { $0.isEmpty ? nil : $0 }
        let names: [String: CatalogArgument] = [
            "file": .text(fileName ?? catalog.text(.unnamedFile)), "printer": .text(printerName),
        ]
        var reason: String?
        if case .reason(let text) = detail { reason = text }
        func withReason(_ body: String) -> String { reason.map { body + "\n" + $0 } ?? body }
        let title: String
        let body: String
        let type: String
        var level: String?
        switch event {
        case .started:
            (title, body, type) = (catalog.text(.startedTitle), catalog.text(.startedBody, names), "print_started")
        case .complete:
            (title, body, type) = (catalog.text(.completeTitle), catalog.text(.completeBody, names), "print_complete")
        case .failed:
            (title, body, type) = (catalog.text(.failedTitle), withReason(catalog.text(.failedBody, names)), "print_failed")
        case .cancelled:
            (title, body, type) = (
                catalog.text(.cancelledTitle), withReason(catalog.text(.cancelledBody, names)), "print_cancelled"
            )
        case .paused:
            (title, body, type) = (catalog.text(.pausedTitle), withReason(catalog.text(.pausedBody, names)), "print_paused")
        case .milestone:
            (title, body, type) = (
                catalog.text(.milestoneTitle, ["percent": .count(milestone ?? progress)]),
                catalog.text(.milestoneBody, names), "progress_milestone"
            )
        case .printerError:
            var text = ""
            if case .printerError(let error) = detail {
                text = error.text.isEmpty ? catalog.text(.printerErrorUnknown, ["code": .text(error.code)]) : error.text
                if error.severity.isUrgent { level = "time-sensitive" }
            }
            reason = text
            (title, body, type) = (catalog.text(.printerErrorTitle, names), text, "printer_error")
        case .bedCooled:
            var arguments = names
            if case .bedCooled(let temperature, let minutes) = detail {
                arguments["temperature"] = .number(temperature, decimals: 1)
                arguments["minutes"] = .count(minutes)
            }
            (title, body, type) = (catalog.text(.bedCooledTitle), catalog.text(.bedCooledBody, arguments), "bed_cooled")
        case .minutesLeft:
            var minutes = 0
            if case .minutesLeft(let value) = detail { minutes = value }
            (title, body, type) = (
                catalog.text(.minutesLeftTitle, ["minutes": .count(minutes)]), catalog.text(.minutesLeftBody, names), "minutes_left"
            )
        case .firstLayer:
            (title, body, type) = (catalog.text(.firstLayerTitle), catalog.text(.firstLayerBody, names), "first_layer_done")
        case .resumed:
            (title, body, type) = (catalog.text(.resumedTitle), catalog.text(.resumedBody, names), "print_resumed")
            level = "passive"
        case .offline:
            (title, body, type) = (catalog.text(.offlineTitle), catalog.text(.offlineBody, names), "printer_offline")
        case .backOnline:
            (title, body, type) = (
                catalog.text(.backOnlineTitle), catalog.text(.backOnlineBody, names), "printer_back_online"
            )
            level = "passive"
        case .notify:
            var given = NotifyRequest(printer: printerName, title: "", message: "")
            if case .message(let request) = detail { given = request }
            (title, body, type) = (given.title.isEmpty ? printerName : given.title, given.message, "ha_notify")
            level = given.level == .active ? nil : given.level.rawValue
        case .update, .end, .start, .history, .test, .summary:
            (title, body, type) = ("Printer Update", "Update from \(printerName)", "printer_update")
        }
        // A quiet note replaces an alert without a sound (iOS: `passive`).
        aps = APS(
            alert: .init(title: title, body: body), sound: level == "passive" ? nil : "default", threadID: prefix,
            interruptionLevel: level, category: NotificationCategory(event: event, status: status)?.rawValue)
        printerState = PrinterState(
            type: type, prefix: prefix, progress: milestone ?? progress, status: status.rawValue,
            filename: fileName, reason: reason, printId: printID)
    }

    /// The same alert without a sound and `passive` (no banner, no lit
    /// screen; it waits in Notification Center with its picture and
    /// buttons): for a phone whose Live Activity update carried this alert
    /// audibly already (docs/BEHAVIOUR.md, "An alert inside the Live
    /// Activity").
    public func quieted() -> AlertPayload {
        var quiet = self
        quiet.inputs.quiet = true
        quiet.aps.sound = nil
        quiet.aps.interruptionLevel = "passive"
        return quiet
    }

    /// The JSON body, within APNs' 4096 bytes: an over-long file name is
    /// shortened (with "…") until it fits.
    public func encoded() throws(PayloadError) -> [UInt8] {
        try PayloadEncoding.fitting(fileName: inputs.fileName) { fileName in
            let payload = AlertPayload(
                event: inputs.event, prefix: inputs.prefix, printerName: inputs.printerName, fileName: fileName,
                status: inputs.status, progress: inputs.progress, milestone: inputs.milestone, detail: inputs.detail,
                catalog: inputs.catalog, printID: inputs.printID)
            return inputs.quiet ? payload.quieted() : payload
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

/// Shared JSON encoding for payloads: `JSONEncoder` with sorted keys (the
/// same bytes for the same push, which the goldens and APNs' size limit rely
/// on) and unescaped slashes (a file name's "/" stays one byte). The types'
/// own `Codable` conformances decide the shape, so the app decodes it with a
/// plain `JSONDecoder`.
enum PayloadEncoding {
    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain value types cannot fail: they hold no
        // non-finite numbers (the only thing JSONEncoder refuses here).
        return (try? encoder.encode(value)).map(Array.init) ?? []
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
