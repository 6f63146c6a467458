import Foundation
import TestSupport
import Testing

/// The address phones pair with in the add-on (issue 49): by default the
/// host's LAN address and the host port mapped to 3000/tcp, both from the
/// Supervisor (a mock answering /network/info and /addons/self/info with the
/// real shapes, Tests/DaemonTests/AddOn/*.json), not the container's; the
/// add-on's options win; a Supervisor that refuses leaves a warning.
extension AddOnStartTests {
    static let networkInfo = doubles + "/network-info.json"
    static let addOnInfo = doubles + "/addon-info.json"

    /// The add-on's service started with these options and Supervisor
    /// answers, its API beyond loopback (HTTPS); its log, environment and port.
    func startedAddOn(
        options: [String: Any] = [:], network: String = networkInfo, addOnInfo: String = addOnInfo
    ) throws -> (service: ChildProcess, log: () -> String, environ: [String], port: Int, state: String, ha: DaemonTests.MockHA) {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: [
            "--supervisor-options", try Self.options(options), "--supervisor-network", network, "--supervisor-addon-info", addOnInfo,
        ])
        let state = DaemonTests.temporaryDirectory("addon-data")
        let container = try Container(environment: [
            "SUPERVISOR_TOKEN": DaemonTests.token, "SUPERVISOR_API": "http://127.0.0.1:\(ha.port)", "STATE_DIR": state,
            "API_LISTEN": "0.0.0.0:0",
        ])
        let out = container.directory + "/out.log", err = container.directory + "/err.log"
        let service = try container.start(out: out, err: err)
        let log = { self.text(out) + self.text(err) }
        #expect(wait(upTo: 30) { log().contains("API listening") }, "\(log().suffix(3000))")
        let port = try #require(log().split(separator: "\n").first { $0.contains("API listening") }?
            .split(separator: "api.port=").last.flatMap { Int($0.prefix { $0.isNumber }) })
        let environ = String(decoding: FileManager.default.contents(atPath: "/proc/\(service.pid)/environ") ?? Data(), as: UTF8.self)
            .split(separator: "\0").map(String.init)
        return (service, log, environ, port, state, ha)
    }

    @Test func phonesPairWithTheHostsLANAddressAndMappedPortByDefault() throws {
        let addOn = try startedAddOn()
        defer { addOn.service.terminate(); _ = addOn.ha }
        // The primary interface's address (not the connected Wi-Fi listed first), the host's port 3443.
        #expect(addOn.environ.contains("API_HOME_URL=https://192.168.1.20:3443"), "\(addOn.environ)")
        #expect(!addOn.environ.contains { $0.hasPrefix("API_OUTSIDE_URL=") })
        #expect(addOn.log().contains("pairing gives phones these addresses  api.home_url=https://192.168.1.20:3443 api.home_url_from=API_HOME_URL"),
                "\(addOn.log().suffix(2000))")
        #expect(!addOn.log().contains("set home_url") && !addOn.log().contains("does not name"), "nothing to set: \(addOn.log().suffix(2000))")

        // The sidebar's "Pair a phone": the QR code names the host's address, and the certificate names it too.
        #expect(try PairingAddressTests.statusPageCode(port: addOn.port, token: Self.apiToken).code["url"] == "https://192.168.1.20:3443")
        let names = try PairingAddressTests.openssl(["x509", "-in", addOn.state + "/api-cert.pem", "-noout", "-ext", "subjectAltName"])
        #expect(names.stdout.contains("IP Address:192.168.1.20"), "\(names.stdout)")
    }

    @Test func theAddOnsOptionsWinOverTheSupervisorsAddress() throws {
        let addOn = try startedAddOn(options: ["home_url": "https://printbridge.local:3000", "outside_url": "https://pb.example.com"])
        defer { addOn.service.terminate(); _ = addOn.ha }
        #expect(addOn.environ.contains("API_HOME_URL=https://printbridge.local:3000"), "\(addOn.environ)")
        #expect(addOn.environ.contains("API_OUTSIDE_URL=https://pb.example.com"))
    }

    /// Without hassio_api the Supervisor answers /network/info 403; a port the
    /// user did not publish is null. The add-on starts, and says what to set.
    @Test(arguments: [
        ("forbidden", AddOnStartTests.addOnInfo, "Unable to access the API, forbidden"),
        (AddOnStartTests.networkInfo, "unpublished", "Port 3000/tcp is not published on the host"),
    ])
    func withoutTheSupervisorsAddressTheAddOnSaysWhatToSet(network: String, addOnInfo: String, reason: String) throws {
        var info = addOnInfo
        if addOnInfo == "unpublished" {
            info = DaemonTests.temporaryDirectory("addon-info") + "/info.json"
            let text = try String(contentsOfFile: Self.addOnInfo, encoding: .utf8)
                .replacingOccurrences(of: #""network": {"3000/tcp": 3443}"#, with: #""network": {"3000/tcp": null}"#)
            try text.write(toFile: info, atomically: true, encoding: .utf8)
        }
        let addOn = try startedAddOn(network: network, addOnInfo: info)
        defer { addOn.service.terminate(); _ = addOn.ha }
        #expect(addOn.log().contains(reason), "\(addOn.log().suffix(2000))")
        #expect(addOn.log().contains("set home_url to where phones reach the API"))
        #expect(!addOn.environ.contains { $0.hasPrefix("API_HOME_URL=") })
        #expect(addOn.log().contains("in a Home Assistant add-on without API_HOME_URL, pairing names the container's address"))
    }
}
