import Foundation
import FoundationNetworking
import Testing
import TestSupport

/// Issue 48, as a user meets it: a real browser (Debian's chromium,
/// headless) on the user's machine opens another site's page while the
/// agent runs beside it. The page tries what the probe did: a blind JSON
/// post as text/plain to the API from the trusted network, the status
/// page's revoke and pairing forms through Home Assistant's ingress path
/// from a sandboxed frame (`Origin: null`) and from the page itself (with
/// the page's own form token, as if it had leaked), and the status page in
/// a frame of its own, to click-jack its buttons. Nothing of it may work.
@Suite(.serialized) struct HostilePageTests {
    static let x1c = "x1c_00m09a350100123"

    @Test func anotherSitesPageInTheUsersBrowserChangesNothing() async throws {
        let events = try PrinterActionDaemonTests.midPrintEvents()
        defer { try? FileManager.default.removeItem(atPath: events) }
        let ha = try DaemonTests.MockHA(events: events)
        // The browser is on the trusted network (loopback here), and the
        // "Supervisor" connects from 127.0.0.2, trusted as an add-on trusts 172.30.32.2.
        let agent = try DaemonTests.Agent(port: ha.port, devices: try DaemonTests.devicesFile(), environment: [
            "API_TRUSTED_NETWORKS": "127.0.0.1/32", "API_INGRESS_PROXY": "127.0.0.2",
        ])
        defer { _ = agent.stop() }
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        let port = try #require(agent.apiPort)

        // A paired phone, whose credential the page will try to revoke.
        let credential = try await PhoneCredentialTests.pairedCredential(agent, port: port)
        let device = try #require(try await PhoneCredentialTests.call(port, "POST", "/api/devices/register",
            body: #"{"apnsToken":"\#(String(repeating: "5a", count: 32))","haUrl":"http://ha:8123","printerPrefix":"\#(Self.x1c)"}"#,
            bearer: credential).json["deviceId"] as? String)

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("MockHA/ingress_proxy.py").path
        let fetched = DaemonTests.temporaryDirectory("ingress") + "/requests.log"
        let ingress = try MockProcess(
            script: script, arguments: ["--target-port", String(port), "--source", "127.0.0.2", "--log", fetched])
        let panel = "http://127.0.0.1:\(ingress.port)/api/hassio_ingress/aBcD1234ingress/"
        // The form token, as the page holds it (the attack is given it, so the Origin checks are what stand).
        let page = try CommandRunner.execute("/usr/bin/curl", ["-s", "--max-time", "10", panel], directory: "/").stdout
        let marker = try #require(page.range(of: #"name="form" value=""#), "the page has forms")
        let formToken = String(page[marker.upperBound...].prefix { $0 != "\"" })

        let attacker = String(repeating: "66", count: 32)
        let html = """
            <!DOCTYPE html><html><head><title>cute cats</title></head><body>
            <p id="fetch">fetch not answered</p>
            <script>
            fetch("http://127.0.0.1:\(port)/api/devices/register", {method: "POST", mode: "no-cors",
                  headers: {"Content-Type": "text/plain"},
                  body: JSON.stringify({apnsToken: "\(attacker)", haUrl: "http://evil.example"})})
              .then(() => { document.getElementById("fetch").textContent = "fetch answered"; });
            </script>
            <iframe sandbox="allow-forms allow-scripts" srcdoc='<form method="post" action="\(panel)devices/\(device)/revoke"><input name="form" value="\(formToken)"></form><script>document.forms[0].submit()</script>'></iframe>
            <iframe name="sink"></iframe>
            <form id="pair" method="post" target="sink" action="\(panel)pairing-code"><input name="form" value="\(formToken)"></form>
            <script>document.getElementById("pair").submit();</script>
            <iframe id="framed" src="\(panel)"></iframe>
            \((0..<12).map { #"<img src="http://127.0.0.1:\#(port)/api/printers?\#($0)">"# }.joined())
            </body></html>
            """
        let site = DaemonTests.temporaryDirectory("hostile")
        try html.write(toFile: site + "/index.html", atomically: true, encoding: .utf8)
        let hostile = try MockProcess(
            script: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("MockHA/hostile_site.py").path,
            arguments: ["--host", "127.0.0.3", "--page", site + "/index.html"])

        let (dom, console) = try browse("http://127.0.0.3:\(hostile.port)/")
        #expect(dom.contains("fetch answered"), "the page ran and its post reached the agent: \(dom.prefix(400))")

        // Nothing registered, nothing revoked, no code made.
        let listed = try await PhoneCredentialTests.call(port, "GET", "/api/devices/by-printer/\(Self.x1c)", bearer: DaemonTests.apiToken)
        let tokens = (listed.json["devices"] as? [[String: Any]])?.compactMap { $0["apns_token"] as? String } ?? []
        #expect(!tokens.contains { $0.hasPrefix("666666") }, "the page registered no phone: \(tokens)")
        #expect(try await PhoneCredentialTests.call(port, "GET", "/api/notifications?device=\(device)", bearer: credential).status == 200,
                "the phone's credential still works")
        let requests = (try? String(contentsOfFile: fetched, encoding: .utf8)) ?? ""
        let posts = requests.split(separator: "\n").filter { $0.contains("/revoke") || $0.contains("/pairing-code") }
        #expect(posts.count == 2 && posts.allSatisfy { $0.hasPrefix("403 ") }, "both forms reached the agent and were refused: \(requests)")
        #expect((agent.metric("printbridge_api_auth_failures_total", containing: #"outcome="cross_site""#) ?? 0) >= 15)
        #expect(agent.metric("printbridge_api_auth_failures_total", containing: #"outcome="refused""#) ?? 0 == 0, "nothing counted as a guess")
        // The page in the frame was fetched, and the browser refused to show it there.
        #expect(requests.split(separator: "\n").contains { $0.hasPrefix("200 text/html") && $0.hasSuffix("/aBcD1234ingress/") })
        #expect(console.contains("frame-ancestors") || console.contains("X-Frame-Options"), "chromium's console: \(console.suffix(3000))")
        // The hostile page's refusals (its twelve images of /api too) held no one back: the seed app still gets in.
        let seed = try await PhoneCredentialTests.call(port, "POST", "/api/devices/register",
            body: #"{"apnsToken":"\#(String(repeating: "7c", count: 32))","haUrl":"http://ha:8123"}"#)
        #expect(seed.status == 200, "\(seed.json)")
        _ = hostile
    }

    /// chromium --headless on a URL, its scripts given 5 s of virtual time:
    /// the DOM as it rendered, and what it printed (its console included).
    func browse(_ url: String) throws -> (dom: String, console: String) {
        let chromium = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                    "chromium is installed by scripts/install-test-deps.sh")
        let profile = DaemonTests.temporaryDirectory("chromium")
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let result = try CommandRunner.execute("/usr/bin/timeout", [
            "-k", "5", "60", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=\(profile)", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom", url,
        ], directory: profile)
        #expect(result.status == 0, "chromium: \(result.stderr.suffix(2000))")
        return (result.stdout, result.stderr)
    }
}
