import DeviceStore
import PrintBridgeCore

extension ControlAPI {
    /// `POST /api/pair` `{"code": "ABCD-EFGH", "name": "Sam's iPhone"}`: a
    /// one-time pairing code (from `printbridge pair`) traded for the phone's
    /// own credential, once. A wrong or expired code is a 401 and counts as a
    /// failed authentication (guessing is held back as for tokens).
    func pair(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try object(request)
        var problems: [String: [String]] = [:]
        let code = text(body, "code", required: true, into: &problems)
        let name = text(body, "name", required: false, into: &problems)
        if let name, name.count > 100 { problems["name", default: []].append("must be at most 100 characters") }
        guard problems.isEmpty, let code else { throw Invalid(details: problems) }
        let (id, secret) = PhoneCredentials.newCredential()
        let redeemed = try store.redeemPairingCode(
            hash: PhoneCredentials.digest(PhoneCredentials.normalised(code)), credentialID: id,
            credentialHash: PhoneCredentials.digest(secret), name: name)
        guard redeemed else {
            var response = refused(request, .bearer)
            response.body = JSONText.object([
                ("success", "false"), ("error", JSONText.quoted("Unknown or expired pairing code; run printbridge pair for a new one")),
            ])
            return response
        }
        return HTTPResponse(status: 201, body: JSONText.object([
            ("success", "true"), ("credentialId", JSONText.quoted(id)), ("credential", JSONText.quoted(secret)),
        ]))
    }

    /// A phone may act only for the device it registered (403 otherwise);
    /// the admin token and the seed app's trusted networks as before.
    func own(_ call: RouteCall, _ body: () throws -> HTTPResponse) throws -> HTTPResponse {
        guard call.caller.mayActFor(device: call["deviceId"]) else {
            return APIError.response(403, "A phone's credential acts only for the device it registered")
        }
        return try body()
    }

    /// `DELETE /api/devices/{deviceId}/credential`: the device's credentials
    /// stop working at once (the admin token, or the phone itself: signing out).
    func revoke(_ deviceID: String, by caller: Caller) throws -> HTTPResponse {
        let revoked = try store.revokeCredentials(of: deviceID)
        guard revoked > 0 else { return APIError.response(404, "No live credential for this device") }
        return HTTPResponse(status: 200, body: JSONText.object([
            ("success", "true"), ("revoked", String(revoked)),
        ]))
    }
}
