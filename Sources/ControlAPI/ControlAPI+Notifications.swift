import DeviceStore
import PrintBridgeCore

/// GET /api/notifications: the alerts sent to one phone, for the app's
/// notification history.
extension ControlAPI {
    /// A page's size when the app does not say, and the most it may ask
    /// (the print history's pages too).
    static let notificationPageSize = 50
    static let notificationPageLimit = 200

    /// `device` (required: the app's own device id), `printer`, `before` (a
    /// `next` cursor of an earlier page, or an ISO 8601 time) and `limit`.
    /// 400 naming each bad parameter, 404 for a device not registered (a
    /// phone asking for another's: 403, from the route's row).
    func notifications(_ request: HTTPRequest) throws -> HTTPResponse {
        var query = try QueryParameters(request, known: ["device", "printer", "before", "limit"])
        let device = query.text("device")
        if query["device"] == nil { query.problem("device", "is required: the app's device id") }
        let printer = query.text("printer")
        let before = query.cursor()
        let limit = query.limit(default: Self.notificationPageSize, maximum: Self.notificationPageLimit)
        try query.check()
        guard let device else { throw Invalid(details: query.problems) }
        guard try store.hasDevice(id: device) else { return APIError.response(404, "Device not found") }
        let page = try store.notifications(device: device, printer: printer, before: before, limit: limit)
        return HTTPResponse(status: 200, body: JSONText.object([
            ("success", "true"), ("device", JSONText.quoted(device)),
            ("notifications", "[" + page.notifications.map { APIJSON.notification($0, now: clock.now()) }.joined(separator: ",") + "]"),
            ("next", page.next.map { JSONText.quoted($0.description) } ?? "null"),
        ]))
    }
}

/// POST /api/devices/{deviceId}/notifications/{notificationId}/opened: the
/// app tells the agent its user opened an alert (its `id` in the phone's
/// history), so a failure or printer error is not told again (issue 53).
extension ControlAPI {
    func opened(_ deviceID: String, _ notificationID: String) throws -> HTTPResponse {
        guard let id = Int(notificationID), id > 0 else {
            throw Invalid(details: ["notificationId": ["must be an alert's id from the phone's history"]])
        }
        guard let opened = try store.markOpened(deviceID: deviceID, notificationID: id, at: clock.now()) else {
            return APIError.response(404, "Notification not found")
        }
        alertOpened(opened.apnsID)
        return HTTPResponse(status: 200, body: JSONText.object([
            ("success", "true"), ("id", String(id)), ("openedAt", JSONText.quoted(ISO8601.format(opened.openedAt))),
        ]))
    }
}
