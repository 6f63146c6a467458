import AgentSettings
import ArgumentParser
import ControlAPI
import DeviceStore
import Pairing
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// `printbridge pair`: what the app needs to talk to this agent — the
/// server URL, the certificate's fingerprint and a one-time pairing code the
/// phone trades for its own credential — as text and as a QR code, in the
/// terminal and as a PNG file. docs/pairing.md shows the app's side.
struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Show the server URL, certificate fingerprint and a one-time pairing code for the app, with a QR code.",
        discussion: """
            The QR code holds {"url": URL, "outsideUrl": URL from outside, "code": one-time pairing code, \
            "fingerprint": the API certificate's SHA-256} as JSON (no outsideUrl without API_OUTSIDE_URL, \
            no fingerprint when the API speaks plain HTTP). The phone \
            trades the code for its own credential (POST /api/pair) within --minutes (10), once. With \
            --admin-token the code also holds the shared API token (the admin credential), as before \
            per-phone credentials; keep such a code to yourself. It is printed to the terminal and \
            written to --out (default printbridge-pairing.png, readable by you only). The URL comes \
            from --url, else API_HOME_URL, else API_LISTEN with, for a wildcard address, this machine's \
            first non-loopback IPv4 address (in Docker or an add-on the container's: set API_HOME_URL); \
            https when the API speaks HTTPS (API_TLS=auto and an address beyond loopback).
            """)

    @Option(name: .long, help: "The address the phone reaches the agent at, instead of API_HOME_URL (e.g. https://192.168.1.20:3000).")
    var url: String?

    @Option(name: .long, help: "The PNG file to write.")
    var out = "printbridge-pairing.png"

    @Option(name: .long, help: "Minutes the pairing code is valid (1-60).")
    var minutes = 10

    @Flag(name: .customLong("admin-token"), help: "Also put the shared API token (the admin credential) in the code.")
    var adminToken = false

    @OptionGroup var configOption: ConfigOption

    func run() throws {
        let settings = try configOption.settings()
        try settings.check([.api])
        guard let token = settings.api.token else {
            throw CommandFailure.config(
                "API_TOKEN or API_TOKEN_FILE not set: the API accepts no credential to pair for, so set one first")
        }
        guard (1...60).contains(minutes) else { throw ValidationError("--minutes must be 1 to 60") }
        let store = try StateDirectory.openStore(settings)
        // The agent's own certificate is made here if `run` has not yet.
        let certificate = try APITLSSetup.certificate(settings, logger: nil)
        let address = try PairingAddress(settings, secure: certificate != nil, home: try givenURL(secure: certificate != nil))
        let (pairingCode, code) = try Self.newCode(
            store: store, address: address, fingerprint: certificate?.fingerprint, adminToken: adminToken ? token : nil,
            minutes: minutes)
        let png = PNGImage.encode(code)
        let descriptor = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0, png.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == png.count else {
            if descriptor >= 0 { close(descriptor) }
            throw CommandFailure.cannotCreate("cannot write \(out)")
        }
        close(descriptor)
        StandardStreams.out("Server:    \(address.home)")
        if let outside = address.outside { StandardStreams.out("From outside: \(outside)") }
        StandardStreams.out("Pairing code: \(pairingCode) (valid \(minutes) minutes, once)")
        if adminToken { StandardStreams.out("API token: \(token)") }
        if let certificate {
            StandardStreams.out("Certificate SHA-256: \(certificate.fingerprint)")
            StandardStreams.out("  (curl: --insecure --pinnedpubkey sha256//\(certificate.publicKeyPin))")
        }
        StandardStreams.out("")
        StandardStreams.out(TerminalQR.render(code))
        StandardStreams.out("")
        StandardStreams.out(
            "The QR code is also in \(out)" + (adminToken ? " (it holds the admin token: keep it private)." : "."))
    }

    /// --url checked as API_HOME_URL is.
    private func givenURL(secure: Bool) throws -> PhoneURL? {
        guard let url else { return nil }
        let given: PhoneURL
        do throws(PhoneURL.Problem) { given = try PhoneURL(parsing: url) } catch { throw ValidationError("--url \(error)") }
        guard given.secure || !secure else { throw ValidationError("--url is http:// but the API speaks HTTPS: write https://") }
        return given
    }

    /// A new one-time pairing code, kept (hashed) in the store for `minutes`,
    /// and the QR code of {url, outsideUrl?, code, token?, fingerprint?}.
    static func newCode(
        store: DeviceStore, address: PairingAddress, fingerprint: String?, adminToken: String?, minutes: Int
    ) throws -> (code: String, qr: QRCode) {
        let pairingCode = PhoneCredentials.newPairingCode()
        try DevicesCommand.storeCall {
            try store.addPairingCode(
                hash: PhoneCredentials.digest(PhoneCredentials.normalised(pairingCode)),
                expires: SystemClock().now() + Double(minutes * 60))
        }
        let text = address.json(code: pairingCode, fingerprint: fingerprint, adminToken: adminToken)
        do throws(QRCode.TooLong) { return (pairingCode, try QRCode(text: text)) } catch {
            throw CommandFailure.config("the URLs are too long for a QR code: \(error)")
        }
    }

    /// The status page's "Pair a phone": a code from the running agent, for
    /// the addresses as they are now (the LAN address may have changed).
    static func offer(_ settings: Settings, store: DeviceStore, certificate: APICertificate?) -> PairingOffer {
        PairingOffer {
            let address = try PairingAddress(settings, secure: certificate != nil)
            let (code, qr) = try newCode(
                store: store, address: address, fingerprint: certificate?.fingerprint, adminToken: nil, minutes: 10)
            return PairingOffer.Made(
                code: code, url: address.home, outsideURL: address.outside, fingerprint: certificate?.fingerprint,
                png: PNGImage.encode(qr), minutes: 10)
        }
    }

    /// http(s)://HOST:PORT from API_LISTEN; a wildcard host becomes this
    /// machine's LAN address; https when the API speaks it (`secure`).
    static func serverURL(_ settings: Settings, secure: Bool) throws -> String {
        guard let listen = try APISetup.address(settings, allowWithoutToken: true) else {
            throw CommandFailure.config("API_LISTEN is off: the app has nothing to talk to (give --url if it is served elsewhere)")
        }
        var host = listen.host
        if host == "0.0.0.0" || host == "::" || host.isEmpty { host = lanAddress() ?? "127.0.0.1" }
        return "\(secure ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(listen.port)"
    }

    /// The first IPv4 address of an interface that is up and not loopback.
    static func lanAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &v4, &text, socklen_t(text.count)) != nil else { continue }
            return String(cString: text)
        }
        return nil
    }
}
