import DeviceStore
import PrintBridgeCore

/// GET /api/notifications: the alerts sent to one phone, for the app's
/// notification history.
extension ControlAPI {
    /// A page's size when the app does not say, and the most it may ask.
    static let notificationPageSize = 50
    static let notificationPageLimit = 200

    /// `device` (required: the app's own device id), `printer`, `before` (a
    /// `next` cursor of an earlier page, or an ISO 8601 time) and `limit`.
    /// 400 naming each bad parameter, 404 for a device not registered (a
    /// phone asking for another's: 403, from the route's row).
    func notifications(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let query = QueryString(request.query) else {
            throw Invalid(details: ["query": ["is not a valid percent-encoded query string"]])
        }
        var problems: [String: [String]] = [:]
        let known: Set<String> = ["device", "printer", "before", "limit"]
        for name in query.names where !known.contains(name) {
            problems[name, default: []].append("is not a parameter (device, printer, before, limit)")
        }
        for name in query.repeated.sorted() where known.contains(name) {
            problems[name, default: []].append("is given more than once")
        }
        func text(_ name: String) -> String? {
            guard let value = query[name] else { return nil }
            guard !value.isEmpty, value.utf8.count <= 512 else {
                problems[name, default: []].append("must be a non-empty string of at most 512 bytes")
                return nil
            }
            return value
        }
        let device = text("device")
        if query["device"] == nil { problems["device", default: []].append("is required: the app's device id") }
        let printer = text("printer")
        var before: DeviceStore.NotificationCursor?
        if let value = text("before") {
            if let time = ISO8601.parse(value) {
                before = DeviceStore.NotificationCursor(createdAt: time)
            } else if let cursor = DeviceStore.NotificationCursor(value) {
                before = cursor
            } else {
                problems["before", default: []].append("must be the `next` of an earlier page or an ISO 8601 time")
            }
        }
        var limit = Self.notificationPageSize
        if let value = query["limit"] {
            if let number = Int(value), (1...Self.notificationPageLimit).contains(number) {
                limit = number
            } else {
                problems["limit", default: []].append("must be a whole number from 1 to \(Self.notificationPageLimit)")
            }
        }
        guard problems.isEmpty, let device else { throw Invalid(details: problems) }
        guard try store.hasDevice(id: device) else { return APIError.response(404, "Device not found") }
        let page = try store.notifications(device: device, printer: printer, before: before, limit: limit)
        return HTTPResponse(status: 200, body: JSONText.object([
            ("success", "true"), ("device", JSONText.quoted(device)),
            ("notifications", "[" + page.notifications.map { APIJSON.notification($0, now: clock.now()) }.joined(separator: ",") + "]"),
            ("next", page.next.map { JSONText.quoted($0.description) } ?? "null"),
        ]))
    }
}
