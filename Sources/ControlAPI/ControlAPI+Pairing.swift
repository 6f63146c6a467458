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

/// A pairing code for the status page, made by `run` (the code stored, the
/// URL, the certificate's fingerprint, and the QR code as a PNG).
public struct PairingOffer: Sendable {
    public struct Made: Sendable {
        public var code: String
        public var url: String
        public var fingerprint: String?
        public var png: [UInt8]
        public var minutes: Int

        public init(code: String, url: String, fingerprint: String?, png: [UInt8], minutes: Int) {
            self.code = code
            self.url = url
            self.fingerprint = fingerprint
            self.png = png
            self.minutes = minutes
        }
    }

    public var make: @Sendable () throws -> Made

    public init(make: @escaping @Sendable () throws -> Made) { self.make = make }
}

extension ControlAPI {
    /// A browser's form post must come from this agent's own page: an
    /// `Origin` naming another host (another site's page posting here with
    /// the admin's remembered credentials) is refused.
    private func sameOrigin(_ request: HTTPRequest) -> Bool {
        guard let origin = request.headers["origin"], origin != "null" else { return true }
        guard let host = request.headers["host"] else { return false }
        let originHost = origin.split(separator: "/").dropFirst().first.map(String.init) ?? ""
        // Behind HA's ingress the page's origin is HA's, which forwards the Host it was asked for.
        return originHost == host || request.headers["x-forwarded-host"] == originHost
    }

    private func htmlPage(_ status: Int, _ title: String, _ body: String) -> HTTPResponse {
        var response = HTTPResponse(
            status: status, body: StatusPage.standalone(title: title, body: body), contentType: "text/html; charset=utf-8")
        response.extraHeaders = [("Cache-Control", "no-store")]
        return response
    }

    /// `POST /pairing-code` from the status page: a one-time code and its QR code.
    func pairingPage(_ request: HTTPRequest) throws -> HTTPResponse {
        guard sameOrigin(request) else { return htmlPage(403, "Refused", "<p>This form is only taken from the agent's own page.</p>") }
        guard let pairing else { return htmlPage(404, "No pairing here", "<p>This agent offers no pairing code.</p>") }
        let made = try pairing.make()
        let qr = "data:image/png;base64," + Base64.encode(made.png)
        var body = #"<p><img class="qr" src="\#(qr)" alt="Pairing QR code"></p>"#
        body += "<dl><dt>Server</dt><dd><code>\(StatusPage.escape(made.url))</code></dd>"
        body += "<dt>Pairing code</dt><dd><code>\(StatusPage.escape(made.code))</code> (valid \(made.minutes) minutes, once)</dd>"
        if let fingerprint = made.fingerprint {
            body += "<dt>Certificate SHA-256</dt><dd><code>\(StatusPage.escape(fingerprint))</code></dd>"
        }
        body += #"</dl><p><a href="./">Back to the status page</a></p>"#
        return htmlPage(200, "Pair a phone", body)
    }

    /// `POST /devices/{deviceId}/revoke` from the status page: the phone's
    /// credential stops working; back to the page.
    func revokeFromPage(_ deviceID: String, _ request: HTTPRequest) throws -> HTTPResponse {
        guard sameOrigin(request) else { return htmlPage(403, "Refused", "<p>This form is only taken from the agent's own page.</p>") }
        let revoked = try store.revokeCredentials(of: deviceID)
        var response = HTTPResponse(status: 303, body: "", contentType: "text/plain; charset=utf-8")
        // Relative: back to the page under HA's ingress prefix too.
        response.extraHeaders = [("Location", "../../?revoked=\(revoked)")]
        return response
    }
}
