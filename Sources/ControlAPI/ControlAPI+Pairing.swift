import DeviceStore
import PrintBridgeCore

extension ControlAPI {
    /// `POST /api/pair` `{"code": "ABCD-EFGH", "name": "Sam's iPhone"}`: a
    /// one-time pairing code (from `printbridge pair`) traded for the phone's
    /// own credential, once. A wrong or expired code is a 401 and counts as a
    /// failed authentication; an address held back for guessing gets a 429
    /// before the code is looked at (`Access.pairingCode`).
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

    /// `DELETE /api/devices/{deviceId}/credential`: the device's credentials
    /// stop working at once (the admin token, or the phone itself: signing out).
    func revoke(_ deviceID: String) throws -> HTTPResponse {
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
        /// The address at home (the QR code's `url`) and from outside (`outsideUrl`).
        public var url: String
        public var outsideURL: String?
        public var fingerprint: String?
        public var png: [UInt8]
        public var minutes: Int

        public init(code: String, url: String, outsideURL: String? = nil, fingerprint: String?, png: [UInt8], minutes: Int) {
            self.code = code
            self.url = url
            self.outsideURL = outsideURL
            self.fingerprint = fingerprint
            self.png = png
            self.minutes = minutes
        }
    }

    public var make: @Sendable () throws -> Made

    public init(make: @escaping @Sendable () throws -> Made) { self.make = make }
}

extension ControlAPI {
    /// A page of the agent's own (the pairing code, a refusal), with the
    /// status page's headers.
    func htmlPage(_ status: Int, _ title: String, _ body: String) -> HTTPResponse {
        var response = HTTPResponse(
            status: status, body: StatusPage.standalone(title: title, body: body), contentType: "text/html; charset=utf-8")
        response.extraHeaders = StatusPage.headers
        return response
    }

    /// Whether a form post carries this agent's form token (`form`, which
    /// only the status page holds; compared in constant time). The
    /// cross-site check (`CrossSite`) has run before; the token also holds
    /// for a browser that sends neither `Origin` nor Fetch Metadata.
    private func carriesFormToken(_ request: HTTPRequest) -> Bool {
        let body = String(decoding: request.body, as: UTF8.self)
        guard let given = QueryString(body)?["form"] else { return false }
        return Self.sameBytes(Array(given.utf8), Array(formToken.utf8))
    }

    private func staleForm() -> HTTPResponse {
        htmlPage(403, "Refused", #"<p>This form is only taken from the agent's own page. <a href="./">Open the page again</a> and retry.</p>"#)
    }

    /// `POST /pairing-code` from the status page: a one-time code and its QR code.
    func pairingPage(_ request: HTTPRequest) throws -> HTTPResponse {
        guard carriesFormToken(request) else { return staleForm() }
        guard let pairing else { return htmlPage(404, "No pairing here", "<p>This agent offers no pairing code.</p>") }
        let made = try pairing.make()
        let qr = "data:image/png;base64," + Base64.encode(made.png)
        var body = #"<p><img class="qr" src="\#(qr)" alt="Pairing QR code"></p>"#
        body += "<dl><dt>Server</dt><dd><code>\(StatusPage.escape(made.url))</code></dd>"
        if let outside = made.outsideURL {
            body += "<dt>From outside</dt><dd><code>\(StatusPage.escape(outside))</code></dd>"
        }
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
        guard carriesFormToken(request) else { return staleForm() }
        let revoked = try store.revokeCredentials(of: deviceID)
        var response = HTTPResponse(status: 303, body: "", contentType: "text/plain; charset=utf-8")
        // Relative: back to the page under HA's ingress prefix too.
        response.extraHeaders = [("Location", "../../?revoked=\(revoked)")]
        return response
    }
}
