import Foundation
import TestSupport
import Testing

/// The addresses pairing gives phones (issue 49): API_HOME_URL and
/// API_OUTSIDE_URL named by `check-config`, put in `pair`'s QR code and in
/// the status page's (read back by a real decoder, as a phone's camera
/// does), and the agent's own certificate made for them; an older
/// certificate that does not name the home address is said at start and
/// left as it is (a new one would change what phones pinned).
@Suite struct PairingAddressTests {
    static let home = "https://192.168.1.20:3443"
    static let outside = "https://printbridge.example.com"

    /// The JSON of the QR code in a PNG file, as zbarimg reads it.
    static func qr(_ png: String) throws -> [String: String] {
        let decoded = try CommandRunner.execute("/usr/bin/zbarimg", ["--raw", "-q", png], directory: "/")
        #expect(decoded.status == 0, "zbarimg: \(decoded.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(decoded.stdout.utf8)) as? [String: String], "\(decoded.stdout)")
    }

    /// The status page's "Pair a phone" as the admin's browser presses it
    /// (plain HTTP from this machine, the page's form token posted back):
    /// the page that answers and its QR code read back.
    static func statusPageCode(port: Int, token: String) throws -> (page: String, code: [String: String]) {
        let admin = ["-u", "admin:\(token)"]
        let page = try APITLSTests.curl(admin + ["http://127.0.0.1:\(port)/"])
        let marker = try #require(page.stdout.range(of: #"name="form" value=""#), "\(page.stdout.prefix(500))")
        let form = String(page.stdout[marker.upperBound...].prefix { $0 != "\"" })
        let posted = try APITLSTests.curl(admin + [
            "-H", "Origin: http://127.0.0.1:\(port)", "--data", "form=\(form)", "http://127.0.0.1:\(port)/pairing-code",
        ])
        let base64 = try #require(posted.stdout.components(separatedBy: "data:image/png;base64,").dropFirst().first?.prefix { $0 != "\"" })
        let png = DaemonTests.temporaryDirectory("status-pairing") + "/qr.png"
        try Data(base64Encoded: String(base64))!.write(to: URL(fileURLWithPath: png))
        return (posted.stdout, try qr(png))
    }

    static func openssl(_ arguments: [String]) throws -> CommandRunner.Result {
        try CommandRunner.execute("/usr/bin/timeout", ["20", "/usr/bin/openssl"] + arguments, directory: "/")
    }

    /// A command with nothing of this process's settings but `environment`.
    static func run(_ arguments: [String], _ environment: [String: String], timeout: Double = 60) throws -> CommandRunner.Result {
        var clean: [String: String] = [:]
        for name in ["HA_URL", "HA_TOKEN", "HA_TOKEN_FILE", "API_TOKEN", "API_TOKEN_FILE", "API_HOME_URL", "API_OUTSIDE_URL",
                     "PRINTBRIDGE_CONFIG", "CREDENTIALS_DIRECTORY", "SUPERVISOR_TOKEN"] {
            clean[name] = ""
        }
        clean["STATE_DIR"] = DaemonTests.temporaryDirectory("pairing-address")
        return try CommandRunner.run(arguments, environment: clean.merging(environment) { $1 }, timeout: timeout)
    }

    @Test func checkConfigNamesTheAddressPhonesGetAndTheSettingToChange() throws {
        let base = ["HA_URL": "http://127.0.0.1:1", "HA_TOKEN": "t", "API_TOKEN": "a", "API_LISTEN": "0.0.0.0:3000"]
        // Unset: API_LISTEN with this machine's LAN address, which in Docker is the container's.
        let derived = try Self.run(["check-config", "--dry-run"], base)
        #expect(derived.status == 0, "\(derived.stderr)")
        #expect(derived.stdout.contains("api: pairing gives phones https://"), "\(derived.stdout)")
        #expect(derived.stdout.contains("(API_LISTEN with this machine's LAN address; in Docker or an add-on that is the container's: "
            + "set API_HOME_URL to the address phones reach)"), "\(derived.stdout)")
        // Set: both named, with the setting each comes from.
        let set = try Self.run(["check-config", "--dry-run"], base.merging(["API_HOME_URL": Self.home + "/", "API_OUTSIDE_URL": Self.outside]) { $1 })
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("api_home_url: \(Self.home)/  # from environment"))
        #expect(set.stdout.contains("api: pairing gives phones \(Self.home) (API_HOME_URL)"), "\(set.stdout)")
        #expect(set.stdout.contains("api: and from outside \(Self.outside) (API_OUTSIDE_URL)"))
        #expect(!set.stderr.contains("warning"), "\(set.stderr)")
        // In an add-on without the setting: the container's address, said as a warning.
        let addOn = try Self.run(["check-config", "--dry-run"], base.merging(["SUPERVISOR_TOKEN": "s"]) { $1 })
        #expect(addOn.status == 0)
        #expect(addOn.stderr.contains("warning: in a Home Assistant add-on without API_HOME_URL, pairing names the container's address"))
        // A phone never reaches loopback: a warning, not a failure.
        let loopback = try Self.run(["check-config", "--dry-run"], base.merging(["API_HOME_URL": "https://127.0.0.1:3000"]) { $1 })
        #expect(loopback.status == 0 && loopback.stderr.contains("warning: API_HOME_URL https://127.0.0.1:3000 is this machine's loopback address"))
        // Addresses too long for the QR code stop check-config and run alike.
        let label = String(repeating: "a", count: 60)
        let long = base.merging([
            "API_HOME_URL": "https://\(label).\(label).home.arpa:3000", "API_OUTSIDE_URL": "https://\(label).\(label).\(label).example.com",
        ]) { $1 }
        let tooLong = try Self.run(["check-config", "--dry-run"], long)
        #expect(tooLong.status == 78 && tooLong.stderr.contains("API_HOME_URL and API_OUTSIDE_URL are too long for pairing's QR code"),
                "\(tooLong.stderr)")
        let run = try Self.run(["run", "--dry-run"], long, timeout: 20)  // it would connect and stay without the check
        #expect(run.status == 78 && run.stderr.contains("too long for pairing's QR code"), "\(run.stderr)")
    }

    @Test func pairPutsBothAddressesInTheQRCodeAndItsURLOptionWins() throws {
        let state = DaemonTests.temporaryDirectory("pair-address")
        let png = state + "/pair.png"
        let environment = ["STATE_DIR": state, "API_LISTEN": "0.0.0.0:3000", "API_TOKEN": DaemonTests.apiToken,
                           "API_HOME_URL": Self.home, "API_OUTSIDE_URL": Self.outside]
        let pair = try Self.run(["pair", "--out", png], environment)
        #expect(pair.status == 0, "\(pair.stderr)")
        #expect(pair.stdout.contains("Server:    \(Self.home)\nFrom outside: \(Self.outside)\n"), "\(pair.stdout)")
        let code = try Self.qr(png)
        #expect(code["url"] == Self.home && code["outsideUrl"] == Self.outside, "\(code)")
        #expect(Set(code.keys) == ["url", "outsideUrl", "code", "fingerprint"])
        #expect(pair.stdout.contains("Certificate SHA-256: \(code["fingerprint"] ?? "-")"))

        // --url replaces the home address only, checked as the setting is.
        let given = try Self.run(["pair", "--out", png, "--url", "https://10.1.2.3:3000"], environment)
        #expect(given.status == 0, "\(given.stderr)")
        #expect(try Self.qr(png)["url"] == "https://10.1.2.3:3000" && (try Self.qr(png))["outsideUrl"] == Self.outside)
        let plain = try Self.run(["pair", "--out", png, "--url", "http://10.1.2.3:3000"], environment)
        #expect(plain.status == 64 && plain.stderr.contains("--url is http:// but the API speaks HTTPS"), "\(plain.stderr)")
        let path = try Self.run(["pair", "--out", png, "--url", "https://10.1.2.3:3000/pb"], environment)
        #expect(path.status == 64 && path.stderr.contains("--url takes no path"), "\(path.stderr)")
        // A bad setting stops pair as it stops run.
        let bad = try Self.run(["pair", "--out", png], environment.merging(["API_OUTSIDE_URL": "printbridge.example.com"]) { $1 })
        #expect(bad.status == 78 && bad.stderr.contains("API_OUTSIDE_URL must be a URL with a scheme and a host"), "\(bad.stderr)")
    }

    /// The status page's "Pair a phone", which has no --url: the QR code
    /// holds the settings' addresses and the served certificate's fingerprint.
    @Test func theStatusPagesPairingOfferUsesTheSettings() throws {
        let (agent, port, ha) = try APITLSTests.agent(["API_HOME_URL": Self.home, "API_OUTSIDE_URL": Self.outside])
        defer { _ = agent.stop(); _ = ha }
        let fingerprint = try #require(agent.logged("API listening").first?["api.fingerprint"] as? String)
        let told = try #require(agent.logged("pairing gives phones these addresses").first)
        #expect(told["api.home_url"] as? String == Self.home && told["api.outside_url"] as? String == Self.outside)
        #expect(told["api.home_url_from"] as? String == "API_HOME_URL")

        let (page, code) = try Self.statusPageCode(port: port, token: DaemonTests.apiToken)
        #expect(page.contains("<dt>From outside</dt><dd><code>\(Self.outside)</code>"), "\(page.prefix(300))")
        #expect(code["url"] == Self.home && code["outsideUrl"] == Self.outside && code["fingerprint"] == fingerprint, "\(code)")
        #expect(code["token"] == nil)
    }

    @Test func theOwnCertificateNamesTheAddressesAndAnOlderOneIsToldNotReplaced() throws {
        let named = ["API_HOME_URL": "https://pb.home.arpa:3000", "API_OUTSIDE_URL": Self.outside]
        let (first, _, ha) = try APITLSTests.agent(named)
        let fingerprint = try #require(first.logged("API listening").first?["api.fingerprint"] as? String)
        let certificate = first.stateDirectory + "/api-cert.pem"
        let names = try Self.openssl(["x509", "-in", certificate, "-noout", "-ext", "subjectAltName"]).stdout
        #expect(names.contains("DNS:pb.home.arpa") && names.contains("DNS:printbridge.example.com"), "\(names)")
        #expect(!first.log.contains("does not name"), "it names the home address")
        #expect(first.stop() == 0)

        // The home address moves to an IP the certificate does not name: said at start, the certificate kept.
        let moved = ["API_HOME_URL": "https://192.168.7.7:3000", "STATE_DIR": first.stateDirectory]
        let (second, _, again) = try APITLSTests.agent(moved)
        defer { _ = second.stop(); _ = (ha, again) }
        #expect(second.logged("API listening").first?["api.fingerprint"] as? String == fingerprint, "not replaced")
        let warning = try #require(second.log.split(separator: "\n").first { $0.contains("does not name 192.168.7.7") })
        #expect(warning.contains("(API_HOME_URL): phones pin the certificate and connect anyway, but a browser or curl checking names "
            + "refuses it; printbridge certificate rotate makes one that names it (every phone then pairs again)"), "\(warning)")
        let checked = try Self.run(["check-config", "--dry-run"], moved.merging([
            "HA_URL": "http://127.0.0.1:1", "HA_TOKEN": "t", "API_TOKEN": "a", "API_LISTEN": "0.0.0.0:3000",
        ]) { $1 })
        #expect(checked.status == 0 && checked.stderr.contains("warning: the API's certificate \(certificate) does not name 192.168.7.7"),
                "\(checked.stderr)")

        // Rotating, asked for, makes one that names it.
        let rotated = try Self.run(["certificate", "rotate"], moved.merging(["API_LISTEN": "0.0.0.0:3000"]) { $1 })
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let renamed = try Self.openssl(["x509", "-in", certificate, "-noout", "-ext", "subjectAltName"]).stdout
        #expect(renamed.contains("IP Address:192.168.7.7"), "\(renamed)")
    }
}
