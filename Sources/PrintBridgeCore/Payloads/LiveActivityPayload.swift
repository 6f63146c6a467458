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

    /// The alert a Live Activity push may carry: it lights the screen and
    /// shows the expanded presentation (or a banner without a Dynamic
    /// Island) and plays `sound` (ActivityKit `AlertConfiguration`: title,
    /// body, sound; Apple's payload keeps the sound inside `alert`). The
    /// title and body are what an Apple Watch shows.
    public struct Alert: Encodable, Hashable, Sendable {
        public var title: String
        public var body: String
        /// `default`, or nil: silent (push-to-start's "Print Started").
        public var sound: String?

        public init(title: String, body: String, sound: String? = nil) {
            self.title = title
            self.body = body
            self.sound = sound
        }
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
        public var alert: Alert?
        /// Which of several Live Activities the system features (the
        /// Dynamic Island, the top of the Lock Screen): the highest
        /// (`ActivityRelevance`).
        public var relevanceScore: Double?

        enum CodingKeys: String, CodingKey {
            case timestamp, event, alert, attributes
            case relevanceScore = "relevance-score"
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
        _ state: PrinterActivityAttributes.ContentState, at now: EpochTime, staleAfter: Double,
        relevance: Double? = nil, alert: Alert? = nil
    ) -> LiveActivityPayload {
        LiveActivityPayload(
            aps: APS(
                timestamp: now.wholeSeconds, event: .update, contentState: state,
                staleDate: (now + staleAfter).wholeSeconds, alert: alert, relevanceScore: relevance))
    }

    /// The final state; the activity stays on the Lock Screen until `dismissAfter` has passed.
    public static func end(
        _ state: PrinterActivityAttributes.ContentState, at now: EpochTime, dismissAfter: Double,
        relevance: Double? = nil, alert: Alert? = nil
    ) -> LiveActivityPayload {
        let dismissal = (now + dismissAfter).wholeSeconds
        return LiveActivityPayload(
            aps: APS(
                timestamp: now.wholeSeconds, event: .end, contentState: state, staleDate: dismissal,
                dismissalDate: dismissal, alert: alert, relevanceScore: relevance))
    }

    /// Push-to-start (iOS 17.2+): creates the activity on the phone, with a
    /// "Print Started" alert naming the file.
    public static func start(
        _ state: PrinterActivityAttributes.ContentState, attributes: PrinterActivityAttributes,
        at now: EpochTime, staleAfter: Double, catalog: Catalog = .english, relevance: Double? = nil
    ) -> LiveActivityPayload {
        let names: [String: CatalogArgument] = [
            "file": .text(attributes.filename), "printer": .text(attributes.printerName),
        ]
        return LiveActivityPayload(
            aps: APS(
                timestamp: now.wholeSeconds, event: .start, contentState: state,
                staleDate: (now + staleAfter).wholeSeconds, attributesType: "PrinterActivityAttributes",
                attributes: attributes,
                alert: .init(title: catalog.text(.startedTitle), body: catalog.text(.startedBody, names)),
                relevanceScore: relevance),
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
                catalog: catalog, relevance: aps.relevanceScore)
        }
    }
}
