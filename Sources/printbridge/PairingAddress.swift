import AgentSettings
import ControlAPI
import Pairing
import PrintBridgeCore

/// The addresses pairing gives a phone, the QR code's `url` and
/// `outsideUrl`: at home API_HOME_URL (or `pair --url`), else API_LISTEN
/// with this machine's LAN address — in Docker or an add-on the container's,
/// which no phone reaches, hence the setting; from outside API_OUTSIDE_URL.
/// The app tries the home one first (docs/pairing.md). `pair`, the status
/// page's "Pair a phone", `run`'s start and `check-config` ask here.
struct PairingAddress: Sendable {
    var home: String
    /// `home` was given (API_HOME_URL, --url), not worked out from API_LISTEN.
    var homeIsGiven: Bool
    var outside: String?

    init(_ settings: Settings, secure: Bool, home given: PhoneURL? = nil) throws {
        outside = settings.api.outsideURL?.description
        if let url = given ?? settings.api.homeURL {
            home = url.description
            homeIsGiven = true
        } else {
            home = try PairCommand.serverURL(settings, secure: secure)
            homeIsGiven = false
        }
    }

    /// The QR code's text: `{"url", "outsideUrl"?, "code", "token"?, "fingerprint"?}`.
    /// `url` stays the home address: app versions before `outsideUrl` read only it.
    func json(code: String, fingerprint: String?, adminToken: String?) -> String {
        var members = [("url", JSONText.quoted(home))]
        if let outside { members.append(("outsideUrl", JSONText.quoted(outside))) }
        members.append(("code", JSONText.quoted(code)))
        if let adminToken { members.append(("token", JSONText.quoted(adminToken))) }
        if let fingerprint { members.append(("fingerprint", JSONText.quoted(fingerprint))) }
        return JSONText.object(members)
    }

    /// Refuses, at start, addresses too long for the status page's QR code
    /// (a code, the fingerprint of the certificate when the API speaks HTTPS).
    func checkFitsQRCode(secure: Bool) throws {
        let fingerprint = secure ? Array(repeating: "00", count: 32).joined(separator: ":") : nil
        do throws(QRCode.TooLong) { _ = try QRCode(text: json(code: "ABCD-EFGH", fingerprint: fingerprint, adminToken: nil)) } catch {
            throw CommandFailure.config("API_HOME_URL and API_OUTSIDE_URL are too long for pairing's QR code: \(error)")
        }
    }

    /// What is worth a warning about these addresses: one a phone cannot
    /// reach, one in an add-on worked out from the container, a certificate
    /// that does not name the home address, plain HTTP from outside. `run`
    /// logs them at start, `check-config` prints them.
    func warnings(_ settings: Settings, certificate: APICertificate?) -> [String] {
        var warnings: [String] = []
        let api = settings.api
        for (name, url) in [("API_HOME_URL", api.homeURL), ("API_OUTSIDE_URL", api.outsideURL)] {
            if let url, url.isLoopback {
                warnings.append("\(name) \(url) is this machine's loopback address: no phone reaches it")
            }
        }
        if !homeIsGiven, api.trustsIngressProxy {
            warnings.append(
                "in a Home Assistant add-on without API_HOME_URL, pairing names the container's address (\(home)), "
                    + "which phones cannot reach: set the add-on's home_url option")
        }
        if let outside = api.outsideURL, !outside.secure {
            warnings.append(
                "API_OUTSIDE_URL \(outside) is plain http: from outside, a phone's credential crosses the internet unencrypted "
                    + "unless a tunnel (Tailscale, WireGuard) encrypts it")
        }
        if let certificate, let host = (try? PhoneURL(parsing: home))?.host, (try? certificate.names(host)) == false {
            let setting = homeIsGiven ? "API_HOME_URL" : "the address pairing names"
            let remedy = api.certificateFile == nil
                ? "printbridge certificate rotate makes one that names it (every phone then pairs again)"
                : "renew it with that name where it comes from"
            warnings.append(
                "the API's certificate \(certificate.certificatePath) does not name \(host) (\(setting)): phones pin the "
                    + "certificate and connect anyway, but a browser or curl checking names refuses it; \(remedy)")
        }
        return warnings
    }
}
