import Foundation
import FoundationNetworking
import TestSupport
import Testing

/// The status page and the print history, from a running agent, seen the
/// way people see them: in a real browser (Debian's chromium, headless),
/// through Home Assistant's ingress path, and from `printbridge history`.
@Suite(.serialized) struct StatusPageTests {
    static let x1c = "x1c_00m09a350100123"
    /// Where the browser's screenshot is kept (.build is not committed).
    static let artifacts = DaemonTests.root + "/.build/test-artifacts"

    /// The agent after a whole print, with a second phone registered
    /// through the API (milestones off), and the API port.
    func agentAfterAPrint(environment: [String: String] = [:]) async throws -> (DaemonTests.Agent, Int, DaemonTests.MockHA) {
        // The X1C's camera (the recording's own camera entity) gives a PNG.
        let ha = try DaemonTests.MockHA(
            events: "bambu-full-print.jsonl",
            arguments: ["--start-delay", "2", "--camera", "camera.\(Self.x1c)_camera=png"])
        let agent = try DaemonTests.Agent(port: ha.port, devices: try DaemonTests.devicesFile(), environment: environment)
        #expect(agent.wait(upTo: 30) { agent.log.contains("API listening") })
        let listening = agent.records.first { ($0["message"] as? String)?.hasPrefix("API listening") == true }
        let port = try #require(listening?["api.port"] as? Int)
        let register = try await call(port, "POST", "/api/devices/register", body: #"{"apnsToken":"\#(String(repeating: "9f", count: 32))","haUrl":"http://ha:8123","printerPrefix":"\#(Self.x1c)","printerName":"Workshop"}"#)
        let deviceID = try #require(register.json["deviceId"] as? String)
        #expect(try await call(port, "PATCH", "/api/devices/\(deviceID)/settings", body: #"{"onMilestone":false}"#).status == 200)
        #expect(agent.wait(upTo: 30) { !agent.logged("print ended", ["print.outcome": "complete"]).isEmpty })
        // What the tests read must be there first: every event handled, every
        // push answered (the page lists the last ones), the API's printer
        // view at its last change, and the print in the history (the agent
        // logs "print ended" before its store queue writes it).
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(try await waitUntil(upTo: 30, asking: {
            let printers = try await call(port, "GET", "/api/printers").json["printers"] as? [[String: Any]]
            let prints = try await call(port, "GET", "/api/printers/\(Self.x1c)/history").json["prints"] as? [[String: Any]]
            return agent.metric("printbridge_outbox_pushes") == 0 && printers?.first?["status"] as? String == "complete"
                && prints?.isEmpty == false
        }))
        return (agent, port, ha)
    }

    struct Reply {
        var status: Int
        var text: String
        var json: [String: Any]
        var headers: [AnyHashable: Any]
    }

    func call(_ port: Int, _ method: String, _ path: String, body: String? = nil, authorization: String? = "Bearer \(DaemonTests.apiToken)") async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Reply(
            status: http.statusCode, text: String(decoding: data, as: UTF8.self),
            json: (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:], headers: http.allHeaderFields)
    }

    /// A GET with curl: status, lower-cased headers, body.
    func curl(_ port: Int, _ path: String, user: String? = nil) throws -> (status: Int, headers: String, body: String) {
        let result = try CommandRunner.execute(
            "/usr/bin/curl", ["-s", "-i", "--max-time", "10"] + (user.map { ["-u", $0] } ?? []) + ["http://127.0.0.1:\(port)\(path)"],
            directory: "/")
        let parts = result.stdout.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, head.lowercased(), parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// chromium --headless: the DOM as it rendered, and a phone-width screenshot.
    func browse(_ url: String, screenshot: String? = nil) throws -> String {
        let chromium = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                    "chromium is installed by scripts/install-test-deps.sh")
        let profile = DaemonTests.temporaryDirectory("chromium")
        defer { try? FileManager.default.removeItem(atPath: profile) }
        var arguments = ["-k", "5", "60", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--no-first-run", "--user-data-dir=\(profile)", "--window-size=390,1600", "--hide-scrollbars"]
        if let screenshot { arguments.append("--screenshot=\(screenshot)") } else { arguments.append("--dump-dom") }
        let result = try CommandRunner.execute("/usr/bin/timeout", arguments + [url], directory: profile)
        #expect(result.status == 0, "chromium: \(result.stderr.suffix(2000))")
        return result.stdout
    }

    @Test func thePageShowsTheAgentInABrowserThroughHomeAssistantsIngress() async throws {
        // The "Supervisor" (the ingress proxy) connects from 127.0.0.2,
        // trusted here as an add-on trusts 172.30.32.2.
        let (agent, port, ha) = try await agentAfterAPrint(environment: ["API_INGRESS_PROXY": "127.0.0.2"])
        defer { _ = agent.stop(); _ = ha }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("MockHA/ingress_proxy.py").path
        let fetched = DaemonTests.temporaryDirectory("ingress") + "/requests.log"
        let ingress = try MockProcess(
            script: script, arguments: ["--target-port", String(port), "--source", "127.0.0.2", "--log", fetched])
        let url = "http://127.0.0.1:\(ingress.port)/api/hassio_ingress/aBcD1234ingress/"

        // A second printer's prints of the last days (the recording's print
        // is on its own day, which the last 30 days hold only for a month).
        let printbridge = try #require(CommandRunner.binary(repositoryRoot: DaemonTests.root))
        let writer = URL(fileURLWithPath: printbridge).deletingLastPathComponent().appendingPathComponent("StoreWriter").path
        let seeded = try CommandRunner.execute(writer, [agent.stateDirectory, "--prints", "p1s_01p09c470200456"], directory: "/")
        #expect(seeded.status == 0, "StoreWriter: \(seeded.stderr)")

        let dom = try browse(url)
        try FileManager.default.createDirectory(atPath: Self.artifacts, withIntermediateDirectories: true)
        try dom.write(toFile: Self.artifacts + "/status-page.html", atomically: true, encoding: .utf8)
        #expect(dom.contains("<h1>PrintBridge</h1>"), "the page rendered: \(dom.prefix(500))")
        #expect(dom.contains(">connected<"), "Home Assistant's connection")
        #expect(dom.contains("X1C") && dom.contains(Self.x1c), "the printer by name and prefix")
        #expect(dom.contains(#"<span class="status complete">complete</span>"#), "its status now")
        #expect(dom.contains("Ended") && dom.contains(#"<td class="complete">complete"#), "its last print")
        // Each printer's last 30 days, drawn by the agent as SVG: the seeded printer's bars and figures.
        #expect(dom.contains("<h3>p1s_01p09c470200456"), "a printer known from its statistics")
        #expect(dom.contains(#"<svg class="chart""#) && dom.contains("Prints per day over the last 30 days for p1s_01p09c470200456: 3 in all"))
        #expect(dom.contains("2 prints (1 completed, 1 failed, 0 cancelled)"), "the day with two prints")
        #expect(dom.contains("1 print (0 completed, 0 failed, 1 cancelled)"), "the day with the cancel")
        #expect(dom.contains("3 prints · 33 % completed · 4.5 h printing · 42 g"), "the totals")
        #expect(dom.contains("Failures: print error 0300-8003 (1)"))
        #expect(!dom.contains("<script"), "no script on the page")
        #expect(dom.contains("ababab…abab"), "the devices-file phone, shortened")
        #expect(!dom.contains(String(repeating: "ab", count: 32)), "never a whole device token")
        #expect(dom.contains("off: milestones"), "the API phone's switch that is off")
        #expect(dom.contains("alert complete") && dom.contains("dry run"), "the last pushes and their answer")
        #expect(!dom.contains(#"href="/"#) && !dom.contains(#"src="/"#), "no URL that would leave the ingress prefix")
        // The printer's latest picture, by its signed link, and the browser loaded it through the ingress path.
        #expect(dom.contains(#"<figure class="snapshot"><img src="api/snapshots/"#), "the latest picture: \(dom)")
        let requests = (try? String(contentsOfFile: fetched, encoding: .utf8)) ?? ""
        #expect(requests.split(separator: "\n").contains {
            $0.hasPrefix("200 image/png ") && $0.contains("/api/hassio_ingress/aBcD1234ingress/api/snapshots/")
        }, "the browser fetched the picture: \(requests)")

        // The page's form through the ingress path, as the browser posts it: its Origin is HA's, which
        // forwards the host it was asked; the form token from the page.
        let marker = try #require(dom.range(of: #"name="form" value=""#), "the page's forms carry its token")
        let token = String(dom[marker.upperBound...].prefix { $0 != "\"" })
        let form = try CommandRunner.execute("/usr/bin/curl", [
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Origin: http://127.0.0.1:\(ingress.port)",
            "-H", "Sec-Fetch-Site: same-origin", "--data", "form=\(token)", url + "pairing-code",
        ], directory: "/")
        #expect(form.stdout == "200", "the ingress proxy's pairing form: \(form.stdout)")
        let stale = try CommandRunner.execute("/usr/bin/curl", [
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Origin: http://127.0.0.1:\(ingress.port)",
            "--data", "form=stale", url + "pairing-code",
        ], directory: "/")
        #expect(stale.stdout == "403", "a form without the page's token: \(stale.stdout)")

        // A screenshot at phone width, kept as a test artifact.
        let png = Self.artifacts + "/status-page.png"
        try? FileManager.default.removeItem(atPath: png)
        _ = try browse(url, screenshot: png)
        let image = try #require(FileManager.default.contents(atPath: png))
        #expect(image.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
        let width = image.count > 24 ? image[16..<20].reduce(0) { $0 << 8 | Int($1) } : 0
        #expect(width == 390, "phone width")
    }

    @Test func thePageAndTheHistoryNeedTheToken() async throws {
        let (agent, port, ha) = try await agentAfterAPrint()
        defer { _ = agent.stop(); _ = ha }
        // curl, not URLSession: FoundationNetworking waits for credentials
        // on a 401 that asks for Basic, where a browser would ask the user.
        let bare = try curl(port, "/")
        #expect(bare.status == 401)
        #expect(bare.headers.contains(#"www-authenticate: basic realm="printbridge""#), "a browser asks for the token")
        #expect(try curl(port, "/", user: "me:wrong").status == 401)
        let basic = try curl(port, "/", user: "me:\(DaemonTests.apiToken)")
        #expect(basic.status == 200 && basic.body.contains("<h1>PrintBridge</h1>"))
        #expect(basic.headers.contains("content-type: text/html"))
        #expect(try curl(port, "/api/printers/\(Self.x1c)/history").status == 401)
    }

    @Test func theHistoryThroughTheAPIAndTheCommand() async throws {
        let (agent, port, ha) = try await agentAfterAPrint()
        let reply = try await call(port, "GET", "/api/printers/\(Self.x1c)/history")
        #expect(reply.status == 200)
        let prints = try #require(reply.json["prints"] as? [[String: Any]])
        #expect(prints.count == 1)
        let print = try #require(prints.first)
        #expect(print["outcome"] as? String == "complete")
        #expect(print["file"] as? String == "benchy_v2")
        #expect(print["progress"] as? Int == 100)
        // By HA's clock: running at 06:26:50.754603, finish at 06:30:59.893769 in the recording (a capture of
        // the real chain). The start is the print id's whole second (PrintRecord.startTime(ofPrintID:)).
        #expect(print["durationSeconds"] as? Int == 250)
        #expect(print["startedAt"] as? String == "2026-11-26T06:26:50.000Z")
        #expect(print["endedAt"] as? String == "2026-11-26T06:30:59.893Z")
        #expect(print["printer"] as? String == Self.x1c)
        #expect(try await call(port, "GET", "/api/printers/no_such_printer/history").status == 404)
        // The same print in the statistics (ten years back, so the recording's day stays inside).
        let stats = try await call(port, "GET", "/api/statistics?printer=\(Self.x1c)&days=3660&tz=Europe/Berlin")
        #expect(stats.status == 200, "\(stats.text)")
        let totals = try #require(stats.json["totals"] as? [String: Any])
        #expect(totals["prints"] as? Int == 1 && totals["completed"] as? Int == 1 && totals["successRate"] as? Double == 1)
        #expect(totals["hoursPrinting"] as? Double == 0.07, "250 s, no pause")
        #expect((stats.json["longestPrint"] as? [String: Any])?["file"] as? String == "benchy_v2")
        #expect(stats.json["bucket"] as? String == "month")
        #expect(try await call(port, "POST", "/api/printers/\(Self.x1c)/history").status == 405)
        #expect(agent.stop() == 0)
        _ = ha

        // The same record from the store, with the daemon stopped.
        let json = try CommandRunner.run(["history", "--format", "json"], environment: ["STATE_DIR": agent.stateDirectory])
        #expect(json.status == 0)
        let line = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(line?["printId"] as? String == print["printId"] as? String)
        let text = try CommandRunner.run(["history", Self.x1c], environment: ["STATE_DIR": agent.stateDirectory])
        #expect(text.status == 0 && text.stdout.contains("complete") && text.stdout.contains("benchy_v2  complete  4 min  100 %"))
        let statsJSON = try CommandRunner.run(
            ["stats", "--printer", Self.x1c, "--since", "3660d", "--tz", "UTC", "--json"],
            environment: ["STATE_DIR": agent.stateDirectory])
        #expect(statsJSON.status == 0, "\(statsJSON.stderr)")
        let fromStore = try JSONSerialization.jsonObject(with: Data(statsJSON.stdout.utf8)) as? [String: Any]
        #expect((fromStore?["totals"] as? [String: Any])?["prints"] as? Int == 1)
        let table = try CommandRunner.run(["stats", "--since", "3660d"], environment: ["STATE_DIR": agent.stateDirectory, "TZ": "Europe/Berlin"])
        #expect(table.status == 0 && table.stdout.contains("(Europe/Berlin), by month"), "\(table.stdout)")
        #expect(table.stdout.contains("Prints          1   completed 1 · failed 0 · cancelled 0 · abandoned 0"), "\(table.stdout)")
        #expect(table.stdout.contains("Longest print   \(Self.x1c)  benchy_v2  4 min  (complete, 2026-11-26)"), "\(table.stdout)")
        let badZone = try CommandRunner.run(["stats", "--tz", "Nowhere/Else"], environment: ["STATE_DIR": agent.stateDirectory])
        #expect(badZone.status == 64 && badZone.stderr.contains("--tz: is not a time zone"), "\(badZone.stderr)")
        let none = try CommandRunner.run(["history", "p1s_nothing"], environment: ["STATE_DIR": agent.stateDirectory])
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr.contains("no prints recorded for p1s_nothing"))
    }

    /// The alerts a phone was sent, from the running agent's API and, with
    /// the daemon stopped, from `printbridge notifications`.
    @Test func theAlertsSentThroughTheAPIAndTheCommand() async throws {
        let (agent, port, ha) = try await agentAfterAPrint()
        let devices = try #require(
            try await call(port, "GET", "/api/devices/by-printer/\(Self.x1c)").json["devices"] as? [[String: Any]])
        // The devices file's phone: every alert of the print.
        let phone = try #require(devices.first { ($0["apns_token"] as? String)?.hasPrefix("ababab") == true }?["id"] as? String)
        let reply = try await call(port, "GET", "/api/notifications?device=\(phone)")
        #expect(reply.status == 200, "\(reply.text)")
        let items = try #require(reply.json["notifications"] as? [[String: Any]])
        #expect(items.map { $0["kind"] as? String } == ["complete", "milestone", "milestone", "milestone", "started"])
        #expect(items.allSatisfy { $0["outcome"] as? String == "delivered" && $0["printer"] as? String == Self.x1c })
        #expect(items.first?["title"] as? String == "Print Complete! 🎉")
        #expect((items.first?["body"] as? String)?.contains("benchy_v2") == true)
        let paged = try await call(port, "GET", "/api/notifications?device=\(phone)&limit=2")
        #expect((paged.json["notifications"] as? [Any])?.count == 2 && paged.json["next"] is String)
        #expect(try await call(port, "GET", "/api/notifications").status == 400)
        #expect(try await call(port, "GET", "/api/notifications?device=nobody").status == 404)
        #expect(agent.stop() == 0)
        _ = ha

        let environment = ["STATE_DIR": agent.stateDirectory]
        let json = try CommandRunner.run(["notifications", "--device", phone, "--json"], environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let lines = try json.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(lines.map { $0["id"] as? Int } == items.map { $0["id"] as? Int }, "the API's list")
        let text = try CommandRunner.run(["notifications", "--device", phone, "--limit", "1"], environment: environment)
        #expect(text.status == 0)
        let line = text.stdout.split(separator: "\n")
        #expect(line.count == 1 && line.first?.contains("\(Self.x1c)  complete  delivered  Print Complete! 🎉 — ") == true,
                "\(text.stdout)")
        let everyone = try CommandRunner.run(["notifications", "--printer", Self.x1c], environment: environment)
        #expect(everyone.stdout.contains("phone \(phone) (token ababab"), "\(everyone.stdout)")
        let unknown = try CommandRunner.run(["notifications", "--device", "nobody"], environment: environment)
        #expect(unknown.status == 66 && unknown.stderr.contains("no device nobody"))
        let none = try CommandRunner.run(["notifications", "--printer", "p1s_nothing"], environment: environment)
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr.contains("no alerts recorded for p1s_nothing"))
    }
}

extension StatusPageTests {
    /// Issue 34 on the status page, for a signed-in admin: a pairing code with
    /// its QR code (a real decoder reads it, the code pairs a phone), and a
    /// phone's credential revoked with a button; another site's form is refused.
    @Test func theAdminPairsAndRevokesAPhoneFromThePage() async throws {
        let (agent, port, ha) = try await agentAfterAPrint()
        defer { _ = agent.stop(); _ = ha }
        let page = try curl(port, "/", user: "admin:\(DaemonTests.apiToken)")
        #expect(page.body.contains(#"<form method="post" action="pairing-code">"#))
        // The page's forms carry its token; a browser posts it back with the form.
        let marker = try #require(page.body.range(of: #"name="form" value=""#))
        let token = String(page.body[marker.upperBound...].prefix { $0 != "\"" })
        func post(_ path: String, origin: String? = nil) throws -> (status: Int, headers: String, body: String) {
            var arguments = ["-s", "-i", "--max-time", "10", "--data", "form=\(token)", "-u", "admin:\(DaemonTests.apiToken)"]
            if let origin { arguments += ["-H", "Origin: \(origin)"] }
            let result = try CommandRunner.execute("/usr/bin/curl", arguments + ["http://127.0.0.1:\(port)\(path)"], directory: "/")
            let parts = result.stdout.components(separatedBy: "\r\n\r\n")
            return (Int(parts[0].split(separator: " ").dropFirst().first ?? "") ?? 0, parts[0].lowercased(),
                    parts.dropFirst().joined(separator: "\r\n\r\n"))
        }

        // The pairing page: the QR code as an inline PNG that zbarimg reads, holding the code shown.
        let pairing = try post("/pairing-code", origin: "http://127.0.0.1:\(port)")
        #expect(pairing.status == 200, "\(pairing.headers)")
        let base64 = try #require(pairing.body.components(separatedBy: "data:image/png;base64,").dropFirst().first?
            .prefix { $0 != "\"" })
        let directory = DaemonTests.temporaryDirectory("pairing-page")
        try Data(base64Encoded: String(base64))!.write(to: URL(fileURLWithPath: directory + "/qr.png"))
        let decoded = try CommandRunner.execute("/usr/bin/zbarimg", ["--raw", "-q", directory + "/qr.png"], directory: directory)
        let code = try #require((try JSONSerialization.jsonObject(with: Data(decoded.stdout.utf8)) as? [String: String])?["code"])
        #expect(pairing.body.contains(code) && !pairing.body.contains(DaemonTests.apiToken), "the code shown, never the admin token")
        // Another site's page posting with the admin's remembered credentials: refused.
        #expect(try post("/pairing-code", origin: "https://evil.example").status == 403)

        // The code pairs a phone; the page lists its credential with a Revoke button that works.
        let paired = try await call(port, "POST", "/api/pair", body: #"{"code":"\#(code)"}"#, authorization: nil)
        let credential = try #require(paired.json["credential"] as? String, "\(paired.json)")
        let registered = try await call(port, "POST", "/api/devices/register",
            body: #"{"apnsToken":"\#(String(repeating: "8d", count: 32))","haUrl":"http://ha:8123"}"#, authorization: "Bearer \(credential)")
        let device = try #require(registered.json["deviceId"] as? String)
        #expect(try curl(port, "/", user: "admin:\(DaemonTests.apiToken)").body.contains(#"action="devices/\#(device)/revoke""#))
        #expect(try post("/devices/\(device)/revoke", origin: "https://evil.example").status == 403)
        let revoked = try post("/devices/\(device)/revoke", origin: "http://127.0.0.1:\(port)")
        #expect(revoked.status == 303 && revoked.headers.contains("location: ../../?revoked=1"), "\(revoked.headers)")
        let refused = try await call(port, "GET", "/api/notifications?device=\(device)", authorization: "Bearer \(credential)")
        #expect(refused.status == 401)
        // A phone's credential does not open the page's forms.
        #expect(try CommandRunner.execute("/usr/bin/curl", [
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Authorization: Bearer \(credential)",
            "http://127.0.0.1:\(port)/pairing-code",
        ], directory: "/").stdout == "401")
    }
}
