import Foundation
import Testing
import TestSupport

/// The API's HTTPS (issue 34): the agent makes its own certificate, pairing
/// shows its fingerprint, clients that pin it get in and others do not, weak
/// TLS is refused, plain HTTP is left to the machine itself (and, while
/// upgrading, the LAN), and guessing credentials is slow.
@Suite struct APITLSTests {
    static func curl(_ arguments: [String]) throws -> CommandRunner.Result {
        try CommandRunner.execute("/usr/bin/curl", ["-sS", "--max-time", "10"] + arguments, directory: "/")
    }

    static func openssl(_ arguments: [String]) throws -> CommandRunner.Result {
        try CommandRunner.execute("/usr/bin/timeout", ["20", "/usr/bin/openssl"] + arguments, directory: "/")
    }

    /// An agent whose API listens beyond loopback (so it speaks HTTPS), and its port.
    static func agent(_ environment: [String: String] = [:]) throws -> (DaemonTests.Agent, Int, DaemonTests.MockHA) {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--start-delay", "1"])
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(),
            environment: ["API_LISTEN": "0.0.0.0:0"].merging(environment) { $1 })
        #expect(agent.wait(upTo: 30) { agent.apiPort != nil })
        return (agent, try #require(agent.apiPort), ha)
    }

    @Test func theAPISpeaksHTTPSAndAClientPinningItsCertificateGetsIn() throws {
        let (agent, port, ha) = try Self.agent()
        defer { _ = agent.stop(); _ = ha }
        let listening = try #require(agent.logged("API listening").first)
        #expect(listening["api.tls"] as? String == "on")
        let fingerprint = try #require(listening["api.fingerprint"] as? String)
        #expect(fingerprint.count == 95, "32 bytes in colon pairs: \(fingerprint)")

        // The agent's own key and certificate, in the state directory; the key for its user alone.
        let key = agent.stateDirectory + "/api-key.pem", certificate = agent.stateDirectory + "/api-cert.pem"
        #expect(try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int == 0o600)
        let x509 = try Self.openssl(["x509", "-in", certificate, "-noout", "-fingerprint", "-sha256", "-ext", "subjectAltName"])
        #expect(x509.stdout.contains("Fingerprint=\(fingerprint)"), "\(x509.stdout)")
        #expect(x509.stdout.contains("IP Address:127.0.0.1") && x509.stdout.contains("DNS:localhost"))

        // `printbridge pair` shows the https URL, the fingerprint and curl's public-key pin.
        let pngPath = DaemonTests.temporaryDirectory("pair") + "/pair.png"
        let pair = try CommandRunner.run(["pair", "--out", pngPath], environment: [
            "STATE_DIR": agent.stateDirectory, "API_LISTEN": "0.0.0.0:\(port)", "API_TOKEN": DaemonTests.apiToken,
        ])
        #expect(pair.status == 0, "\(pair.stderr)")
        #expect(pair.stdout.contains("Server:    https://") && pair.stdout.contains("Certificate SHA-256: \(fingerprint)"))
        let decoded = try CommandRunner.execute("/usr/bin/zbarimg", ["--raw", "-q", pngPath], directory: "/")
        let code = try JSONSerialization.jsonObject(with: Data(decoded.stdout.utf8)) as? [String: String]
        #expect(code?["fingerprint"] == fingerprint && code?["url"]?.hasPrefix("https://") == true, "\(decoded.stdout)")
        let pinLine = try #require(pair.stdout.split(separator: "\n").first { $0.contains("--pinnedpubkey sha256//") })
        let pin = String(try #require(pinLine.split(separator: "sha256//").last).dropLast())  // the closing ")"

        // curl pinning the key gets in over HTTPS; a wrong pin is refused before any request.
        let pinned = try Self.curl(["--insecure", "--pinnedpubkey", "sha256//\(pin)", "https://127.0.0.1:\(port)/healthz"])
        #expect(pinned.status == 0 && pinned.stdout.contains(#""status":"ok""#), "\(pinned.stderr)")
        let wrong = try Self.curl([
            "--insecure", "--pinnedpubkey", "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "https://127.0.0.1:\(port)/healthz",
        ])
        #expect(wrong.status == 90, "curl's SSL_PINNEDPUBKEYNOTMATCH: \(wrong.status) \(wrong.stderr)")
        #expect(wrong.stdout.isEmpty)

        // Python's ssl, as an app pins: the certificate's SHA-256 against the paired fingerprint, then the token.
        let script = """
            import hashlib, socket, ssl, sys
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE  # trust by the pin alone, as the app does
            with socket.create_connection(("127.0.0.1", \(port))) as raw:
                with context.wrap_socket(raw, server_hostname="printbridge") as tls:
                    seen = ":".join("%02X" % b for b in hashlib.sha256(tls.getpeercert(True)).digest())
                    if seen != sys.argv[1]:
                        print("PIN MISMATCH", seen); sys.exit(3)
                    tls.sendall(b"GET /api/printers HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Bearer \(DaemonTests.apiToken)\\r\\n\\r\\n")
                    answer = b""
                    while chunk := tls.recv(65536):
                        answer += chunk
                    print(tls.version(), answer.split(b"\\r\\n")[0].decode())
            """
        let python = try CommandRunner.execute("/usr/bin/env", ["python3", "-c", script, fingerprint], directory: "/")
        #expect(python.status == 0 && python.stdout.contains("HTTP/1.1 200"), "\(python.stdout) \(python.stderr)")
        #expect(python.stdout.hasPrefix("TLSv1.3"))
        // Another fingerprint: its first byte changed (a fixed "00" was the real one for 1 certificate in 256).
        let otherFirstByte = fingerprint.hasPrefix("00:") ? "01:" : "00:"
        let mismatch = try CommandRunner.execute(
            "/usr/bin/env", ["python3", "-c", script, otherFirstByte + fingerprint.dropFirst(3)], directory: "/")
        #expect(mismatch.status == 3 && mismatch.stdout.contains("PIN MISMATCH"), "\(mismatch.status) \(mismatch.stdout) \(mismatch.stderr)")

        // Plain HTTP: the machine itself (127.0.0.1) yes; the LAN (another address) is told to use https.
        let local = try Self.curl(["http://127.0.0.1:\(port)/healthz"])
        #expect(local.stdout.contains(#""status":"ok""#), "\(local.stderr)")
        let lan = try Self.curl(["--interface", "127.0.0.3", "-i", "http://127.0.0.1:\(port)/healthz"])
        #expect(lan.stdout.hasPrefix("HTTP/1.1 400") && lan.stdout.contains("use https://"), "\(lan.stdout)")
        #expect(agent.logged("the app's API answered plain HTTP from the LAN; pair the app again (printbridge pair) for HTTPS with the pinned certificate, then set API_PLAIN_HTTP=false").isEmpty)
    }

    @Test func onlyTLS12AndUpWithForwardSecretAEADCiphers() throws {
        let (agent, port, ha) = try Self.agent()
        defer { _ = agent.stop(); _ = ha }
        func handshake(_ options: [String]) throws -> CommandRunner.Result {
            try Self.openssl(["s_client", "-connect", "127.0.0.1:\(port)", "-brief"] + options + ["-no_ign_eof"])
        }
        // The client is let offer what it would refuse itself (SECLEVEL=0): the server must say no.
        let old = try handshake(["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"])
        #expect(old.status != 0 && !old.stderr.contains("Protocol version: TLSv1.1"), "\(old.stderr)")
        let tls10 = try handshake(["-tls1", "-cipher", "DEFAULT@SECLEVEL=0"])
        #expect(tls10.status != 0, "\(tls10.stderr)")
        for weak in ["AES128-SHA", "AES256-GCM-SHA384", "ECDHE-ECDSA-AES128-SHA", "DHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES128-SHA256"] {
            let result = try handshake(["-tls1_2", "-cipher", weak + "@SECLEVEL=0"])
            #expect(result.status != 0, "\(weak) was accepted: \(result.stderr)")
        }
        let good12 = try handshake(["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"])
        #expect(good12.stderr.contains("Protocol version: TLSv1.2") && good12.stderr.contains("ECDHE-ECDSA-AES128-GCM-SHA256"),
                "\(good12.stderr)")
        let good13 = try handshake(["-tls1_3"])
        #expect(good13.stderr.contains("Protocol version: TLSv1.3"), "\(good13.stderr)")
        let renegotiate = try Self.openssl(["s_client", "-connect", "127.0.0.1:\(port)", "-tls1_2", "-brief"])
        #expect(!renegotiate.stderr.contains("Secure Renegotiation IS supported"))
    }

    @Test func whileUpgradingPlainHTTPFromTheLANIsServedAndSaidOnceADay() throws {
        let (agent, port, ha) = try Self.agent(["API_PLAIN_HTTP": "true"])
        defer { _ = agent.stop(); _ = ha }
        for _ in 0..<3 {
            let lan = try Self.curl(["--interface", "127.0.0.3", "http://127.0.0.1:\(port)/healthz"])
            #expect(lan.stdout.contains(#""status":"ok""#), "\(lan.stderr)")
        }
        let told = agent.logged(
            "the app's API answered plain HTTP from the LAN; pair the app again (printbridge pair) for HTTPS with the pinned certificate, then set API_PLAIN_HTTP=false")
        #expect(told.count == 1 && told.first?["api.peer"] as? String == "127.0.0.3", "\(told)")
        // HTTPS is served beside it.
        #expect(try Self.curl(["--insecure", "https://127.0.0.1:\(port)/healthz"]).stdout.contains(#""status":"ok""#))
    }

    @Test func aCertificateOfTheUsersOwnReplacesTheAgentsAndRotationMakesANewOne() throws {
        let directory = DaemonTests.temporaryDirectory("usercert")
        let made = try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30",
            "-subj", "/CN=printbridge.example", "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem",
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let expected = try Self.openssl(["x509", "-in", directory + "/cert.pem", "-noout", "-fingerprint", "-sha256"]).stdout
        let (agent, port, ha) = try Self.agent(["API_CERT_FILE": directory + "/cert.pem", "API_KEY_FILE": directory + "/key.pem"])
        let fingerprint = try #require(agent.logged("API listening").first?["api.fingerprint"] as? String)
        #expect(expected.contains("Fingerprint=\(fingerprint)"))
        #expect(try Self.curl(["--insecure", "https://127.0.0.1:\(port)/healthz"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: agent.stateDirectory + "/api-cert.pem"), "no certificate of its own made")
        #expect(agent.stop() == 0)
        _ = ha

        // A key that is not the certificate's: run stops with a clear word.
        let other = try Self.openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", directory + "/other.pem"])
        #expect(other.status == 0)
        let refused = try CommandRunner.run(["run", "--dry-run"], environment: [
            "HA_URL": "http://127.0.0.1:1", "HA_TOKEN": "x", "API_TOKEN": DaemonTests.apiToken, "API_LISTEN": "0.0.0.0:0",
            "STATE_DIR": directory, "API_CERT_FILE": directory + "/cert.pem", "API_KEY_FILE": directory + "/other.pem",
        ])
        #expect(refused.status == 78 && refused.stderr.contains("is not the key of"), "\(refused.status) \(refused.stderr)")

        // The agent's own: shown, then rotated to a new one.
        let state = DaemonTests.temporaryDirectory("rotate")
        let environment = ["STATE_DIR": state, "API_LISTEN": "0.0.0.0:3000"]
        let shown = try CommandRunner.run(["certificate", "show"], environment: environment)
        #expect(shown.status == 0, "\(shown.stderr)")
        let rotated = try CommandRunner.run(["certificate", "rotate"], environment: environment)
        #expect(rotated.status == 0 && rotated.stdout.contains("pair each phone again"), "\(rotated.stderr)")
        func sha(_ text: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix("SHA-256:") }.map { String($0.split(separator: " ").last ?? "") }
        }
        #expect(sha(shown.stdout) != nil && sha(shown.stdout) != sha(rotated.stdout))
        #expect(sha(try CommandRunner.run(["certificate"], environment: environment).stdout) == sha(rotated.stdout))
    }

    @Test func tenThousandWrongCredentialsAreHeldBackAndHealthzStillAnswers() throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--start-delay", "1"])
        let agent = try DaemonTests.Agent(port: ha.port, devices: try DaemonTests.devicesFile())
        defer { _ = agent.stop() }
        let port = try #require(agent.wait(upTo: 30) { agent.apiPort != nil } ? agent.apiPort : nil)
        // One address, 10,000 guesses as fast as it can, /healthz asked every 500th.
        let script = """
            import collections, http.client, secrets, sys, time
            counts = collections.Counter(); health = []; started = time.monotonic()
            for attempt in range(10000):
                connection = http.client.HTTPConnection("127.0.0.1", \(port), timeout=10)
                connection.request("GET", "/api/printers", headers={"Authorization": "Bearer " + secrets.token_hex(16)})
                counts[connection.getresponse().status] += 1
                connection.close()
                if attempt % 500 == 0:
                    connection = http.client.HTTPConnection("127.0.0.1", \(port), timeout=10)
                    t = time.monotonic(); connection.request("GET", "/healthz"); status = connection.getresponse().status
                    health.append((status, time.monotonic() - t)); connection.close()
            print(counts[401], counts[429], len(counts)); print(max(h[1] for h in health)); print(all(h[0] == 200 for h in health))
            print(time.monotonic() - started)
            """
        let run = try CommandRunner.execute("/usr/bin/env", ["python3", "-c", script], directory: "/")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(run.status == 0 && lines.count == 4, "\(run.stdout) \(run.stderr)")
        let counts = (lines.first ?? "").split(separator: " ").compactMap { Int($0) }
        let (refused, throttled) = (counts.first ?? 0, counts.count > 1 ? counts[1] : 0)
        // Ten free guesses, the eleventh shuts the address out for 1 s, and each guess after a
        // wait doubles it (2, 4, 8 … s): a run of seconds gets a handful more, the rest are 429.
        #expect((11...20).contains(refused), "\(lines)")
        #expect(throttled == 10_000 - refused && counts.last == 2, "only 401 and 429: \(lines)")
        #expect(lines.count > 2 && lines[2] == "True", "/healthz answered 200 throughout")
        #expect((Double(lines.count > 1 ? lines[1] : "") ?? 99) < 1, "/healthz answered within a second: \(lines)")
        // Told once, counted; the right token from that address is held back too until the wait is over.
        #expect(agent.logged("too many failed API authentications from one address; it is held back").count == 1)
        #expect(agent.metric("printbridge_api_auth_failures_total", containing: #"outcome="throttled""#) == Double(throttled))
        #expect(agent.metric("printbridge_api_auth_failures_total", containing: #"outcome="refused""#) == Double(refused))
        // (One more wrong guess first: on a slow machine the run may outlast its last wait, and a
        // guess then starts the next one; a success never clears what came before.)
        _ = LocalHTTP.get(port: port, "/api/printers", headers: ["Authorization": "Bearer wrong-again"])
        let held = try #require(LocalHTTP.get(port: port, "/api/printers", headers: ["Authorization": "Bearer \(DaemonTests.apiToken)"]))
        #expect(held.status == 429)
        _ = ha
    }
}
