#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PrinterActivityContent

/// The body of a Live Activity push (`apns-push-type: liveactivity`).
///
/// `content-state` is encoded from the app's own `ContentState` type, so
/// what the agent sends is by construction what ActivityKit decodes.
public struct LiveActivityPayload: Encodable, Hashable, Sendable {
    public enum Event: String, Encodable, Hashable, Sendable {
        case update, end, start
    }

    public struct APS: Encodable, Hashable, Sendable {
        public var timestamp: Int
        public var event: Event
        public var contentState: PrinterActivityAttributes.ContentState
        public var staleDate: Int
        public var dismissalDate: Int?
        /// Push-to-start only.
        public var attributesType: String?
        public var attributes: PrinterActivityAttributes?
        public var alert: AlertPayload.APS.Alert?

        enum CodingKeys: String, CodingKey {
            case timestamp, event, alert, attributes
            case contentState = "content-state"
            case staleDate = "stale-date"
            case dismissalDate = "dismissal-date"
            case attributesType = "attributes-type"
        }
    }

    public var aps: APS
    /// The language of a push-to-start's alert (not encoded).
    var catalog: Catalog = .english

    enum CodingKeys: String, CodingKey { case aps }

    /// A routine or status-change update.
    public static func update(
        _ state: PrinterActivityAttributes.ContentState, at now: EpochTime, staleAfter: Double
    ) -> LiveActivityPayload {
        LiveActivityPayload(
            aps: APS(
                timestamp: now.wholeSeconds, event: .update, contentState: state,
                staleDate: (now + staleAfter).wholeSeconds))
    }

    /// The final state; the activity stays on the Lock Screen until `dismissAfter` has passed.
    public static func end(
        _ state: PrinterActivityAttributes.ContentState, at now: EpochTime, dismissAfter: Double
    ) -> LiveActivityPayload {
        let dismissal = (now + dismissAfter).wholeSeconds
        return LiveActivityPayload(
            aps: APS(
                timestamp: now.wholeSeconds, event: .end, contentState: state, staleDate: dismissal,
                dismissalDate: dismissal))
    }

    /// Push-to-start (iOS 17.2+): creates the activity on the phone, with a
    /// "Print Started" alert naming the file.
    public static func start(
        _ state: PrinterActivityAttributes.ContentState, attributes: PrinterActivityAttributes,
        at now: EpochTime, staleAfter: Double, catalog: Catalog = .english
    ) -> LiveActivityPayload {
        let names: [String: CatalogArgument] = [
            "file": .text(attributes.filename), "printer": .text(attributes.printerName),
        ]
        return LiveActivityPayload(
            aps: APS(
                timestamp: now.wholeSeconds, event: .start, contentState: state,
                staleDate: (now + staleAfter).wholeSeconds, attributesType: "PrinterActivityAttributes",
                attributes: attributes,
                alert: .init(title: catalog.text(.startedTitle), body: catalog.text(.startedBody, names))),
            catalog: catalog)
    }

    public func encoded() throws(PayloadError) -> [UInt8] {
        guard aps.event == .start, let attributes = aps.attributes else {
            return try PayloadEncoding.fitting(fileName: nil) { _ in self }
        }
        return try PayloadEncoding.fitting(fileName: attributes.filename) { fileName in
            LiveActivityPayload.start(
                aps.contentState,
                attributes: PrinterActivityAttributes(
                    filename: fileName ?? attributes.filename, startTime: attributes.startTime,
                    printerName: attributes.printerName, printerModel: attributes.printerModel,
                    entityPrefix: attributes.entityPrefix),
                at: EpochTime(seconds: Double(aps.timestamp)), staleAfter: Double(aps.staleDate - aps.timestamp),
                catalog: catalog)
        }
    }
}
