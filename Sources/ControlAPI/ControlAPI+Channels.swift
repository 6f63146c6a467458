import DeviceStore
import PrintBridgeCore

/// Live Activity broadcast channels for the app (iOS 18, issue 52): which
/// channel a printer's activity subscribes to, and a phone saying it
/// follows a printer's activity by that channel (docs/app.md, "Broadcast
/// channels").
extension ControlAPI {
    /// The APNs environment the agent's channels are made in.
    var channelEnvironment: String { apns.production ? "production" : "sandbox" }

    /// `GET /api/printers/{prefix}/channel`: the printer's channel id, or
    /// null when it has none (not made yet, or APNs refused channels): the
    /// app then starts the activity with `pushType: .token`.
    func channel(_ prefix: String) throws -> HTTPResponse {
        let channel = try store.channels(environment: channelEnvironment).byPrinter[prefix]
        guard channel != nil || printers().contains(where: { $0.prefix == prefix }) else {
            return APIError.response(404, "Printer not found")
        }
        return HTTPResponse(status: 200, body: JSONText.object([
            ("success", "true"), ("printerPrefix", JSONText.quoted(prefix)),
            ("channelId", channel.map(JSONText.quoted) ?? "null"),
            ("environment", JSONText.quoted(channelEnvironment)),
        ]))
    }

    /// `POST /api/devices/{deviceId}/activity-channel` {printerPrefix,
    /// channelId}: the phone started the printer's activity with
    /// `pushType: .channel(channelId)`. It gets the channel's broadcasts
    /// from now on and no per-token updates for that printer (its activity
    /// token, if it had one, is dropped). 409 when the id is not the
    /// printer's channel now (it was made again): the app asks again.
    func activityChannel(_ deviceID: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let body = try object(request)
        var problems: [String: [String]] = [:]
        let prefix = text(body, "printerPrefix", required: true, into: &problems)
        let channelID = text(body, "channelId", required: true, into: &problems)
        if let channelID, channelID.utf8.count > 64 || channelID.isEmpty {
            problems["channelId", default: []].append("must be the channel id the agent gave (GET /api/printers/{prefix}/channel)")
        }
        guard problems.isEmpty, let prefix, let channelID else { throw Invalid(details: problems) }
        guard try store.channels(environment: channelEnvironment).byPrinter[prefix] == channelID else {
            return APIError.response(409, "Not the printer's channel now; ask GET /api/printers/\(prefix)/channel again")
        }
        guard try store.followByChannel(deviceID: deviceID, printerPrefix: prefix) else {
            return APIError.response(404, "Device not found")
        }
        devicesChanged()
        return HTTPResponse(status: 200, body: #"{"success":true,"message":"Following the printer's activity by its channel"}"#)
    }
}
