import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Issue 49: the phone's half, walked as the app's owner builds it from
/// docs/app.md. The reference phone (ReferencePhone/reference_phone.py)
/// performs each documented exchange exactly as written there, over TLS
/// pinned to the fingerprint it read from the QR code's PNG, from this
/// machine's LAN address; its alerts are what APNs (the mock) received for
/// its token. At home through the home URL; then the phone leaves home
/// (the home network's path goes away) and reaches the agent through the
/// outside URL, a reverse proxy with a certificate a CA the phone trusts
/// issued for its name.
@Suite(.serialized) struct ReferencePhoneTests {
    static let x1c = "x1c_00m09a350100123"
    static let outsideName = "printbridge.example.test"
    static let phoneToken = String(repeating: "a7", count: 32)
    static let activityToken = String(repeating: "5e", count: 40)
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ReferencePhone").path

    /// This machine's first IPv4 address that is not loopback: the phone's.
    static func lanAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var next = list
        while let entry = next {
            defer { next = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            inet_ntop(AF_INET, &v4, &text, socklen_t(text.count))
            let string = String(cString: text)
            if !string.hasPrefix("127.") { return string }
        }
        return nil
    }

    /// A port nobody listens on now (the agent's, chosen before it starts
    /// so the home and outside URLs can name their own).
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// One run of the reference phone: its JSON lines, and whether every step got its documented status.
    struct Walk {
        var lines: [[String: Any]]
        var ok: Bool
        func step(_ name: String) -> [String: Any] { lines.first { $0["step"] as? String == name } ?? [:] }
    }

    let state = DaemonTests.temporaryDirectory("reference-phone") + "/phone.json"

    func phone(_ steps: [String], qr: String? = nil, set values: [String: String] = [:], extra: [String] = []) throws -> Walk {
        var arguments = [Self.script + "/reference_phone.py", "--doc", DaemonTests.root + "/docs/app.md", "--state", state,
                         "--steps", steps.joined(separator: ",")]
        if let qr { arguments += ["--qr", qr] }
        for (name, value) in values.sorted(by: { $0.key < $1.key }) { arguments += ["--set", "\(name)=\(value)"] }
        let result = try CommandRunner.execute("/usr/bin/env", ["python3"] + arguments + extra, directory: "/")
        let lines = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(result.stderr.isEmpty || result.status == 0, "the phone: \(result.stderr.suffix(1500))")
        return Walk(lines: lines, ok: result.status == 0)
    }

    /// The alerts APNs received for the phone so far: each payload.
    func alerts(_ apns: MockAPNsServer, token: String = phoneToken) -> [[String: Any]] {
        apns.requests().filter { $0["token"] as? String == token && $0["push_type"] as? String == "alert" }
            .compactMap { $0["payload"] as? [String: Any] }
    }

    func alert(_ apns: MockAPNsServer, _ type: String) -> [String: Any]? {
        alerts(apns).first { ($0["printerState"] as? [String: Any])?["type"] as? String == type }
    }

    @Test func thePhoneWalksTheDocumentedPathAtHomeAndFromOutside() async throws {
        let lan = try #require(Self.lanAddress(), "the reference phone needs an address of this machine that is not loopback")
        let apns = try MockAPNsServer(recording: true)
        let holds = DaemonTests.temporaryDirectory("holds")
        let status = "sensor.\(Self.x1c)_print_status", progress = "sensor.\(Self.x1c)_print_progress"
        let ha = try DaemonTests.MockHA(events: "bambu-pause-resume.jsonl", arguments: [
            "--start-file", holds + "/go", "--camera", "camera.\(Self.x1c)_camera=png",
            "--hold-after", "\(progress)=30:\(holds)/running", "--hold-after", "\(status)=pause:\(holds)/paused",
        ])
        let apiPort = try Self.freePort()
        // The home network's path to the agent (killed when the phone leaves home), and the reverse proxy outside.
        let relay = try MockProcess(script: Self.script + "/network.py", arguments: [
            "--mode", "relay", "--listen", lan, "--source", lan, "--target", "\(lan):\(apiPort)",
        ])
        let trustStore = DaemonTests.temporaryDirectory("phone-trust") + "/ca.pem"
        let proxy = try MockProcess(script: Self.script + "/network.py", arguments: [
            "--mode", "proxy", "--listen", "127.0.0.1", "--target", "127.0.0.1:\(apiPort)", "--name", Self.outsideName, "--ca-out", trustStore,
        ])
        let agent = try DaemonTests.Agent(port: ha.port, devices: try DaemonTests.devicesFile(), environment: apns.environment.merging([
            "API_LISTEN": "0.0.0.0:\(apiPort)",
            "API_HOME_URL": "https://\(lan):\(relay.port)", "API_OUTSIDE_URL": "https://\(Self.outsideName):\(proxy.port)",
        ]) { $1 }, dryRun: false)
        defer { _ = agent.stop() }
        #expect(agent.wait(upTo: 30) { agent.log.contains("subscribed to state changes") }, "\(agent.log.suffix(2000))")
        let phoneNetwork = ["--source", lan, "--resolve", "\(Self.outsideName)=127.0.0.1", "--ca", trustStore]

        // The admin's "Pair a phone" on the status page: the QR code as a PNG.
        let qr = try pairingQR(port: apiPort)

        // At home: pair, register, choose, read back, the Live Activity, a test push.
        var walk = try phone(["pair", "register", "settings", "device", "activity-token", "test-push"], qr: qr, set: [
            "printer": Self.x1c, "apnsToken": Self.phoneToken, "activityToken": Self.activityToken,
        ], extra: phoneNetwork)
        #expect(walk.ok, "\(walk.lines)")
        #expect(walk.lines.allSatisfy { $0["base"] as? String == "https://\(lan):\(relay.port)" }, "all at home: \(walk.lines)")
        #expect((walk.step("register")["json"] as? [String: Any])?["deviceId"] is String)
        let read = walk.step("device")["json"] as? [String: Any]
        #expect("\(read ?? [:])".contains(Self.x1c), "the phone's own device read back: \(read ?? [:])")
        #expect(walk.step("test-push")["status"] as? Int == 202)
        #expect(try await waitUntil(upTo: 30, asking: {
            self.alerts(apns).contains { ($0["aps"] as? [String: Any])?["thread-id"] as? String == "printbridge-test" }
        }), "the test push reached APNs for the phone: \(alerts(apns))")

        // The print: started, a milestone; the phone presses Pause as the action handler does.
        FileManager.default.createFile(atPath: holds + "/go", contents: nil)
        #expect(try await waitUntil(upTo: 30, asking: { self.alert(apns, "print_started") != nil }))
        #expect(waitUntil(upTo: 30) { ha.rawStats()["held_at"] as? String == "\(progress)=30" }, "the printer running at 30 %")
        let started = try #require(alert(apns, "print_started"))
        #expect((started["printerState"] as? [String: Any])?["printId"] is String, "a tap opens the print's history entry: \(started)")
        walk = try phone(["pause"], set: ["printer": Self.x1c], extra: phoneNetwork)
        #expect(walk.ok, "\(walk.lines)")

        // Paused for the filament: the alert's picture as the extension downloads it; Stop pressed.
        FileManager.default.createFile(atPath: holds + "/running", contents: nil)
        #expect(try await waitUntil(upTo: 30, asking: { self.alert(apns, "print_paused")?["snapshotURL"] != nil }),
                "the paused alert with its picture: \(alerts(apns).map { $0["printerState"] ?? [:] })")
        let paused = try #require(alert(apns, "print_paused")?["snapshotURL"] as? String)
        walk = try phone(["snapshot", "stop"], set: ["snapshotURL": paused, "printer": Self.x1c], extra: phoneNetwork)
        #expect(walk.ok, "\(walk.lines)")
        #expect(walk.step("snapshot")["type"] as? String == "image/png" && (walk.step("snapshot")["bytes"] as? Int ?? 0) > 0)
        let pressed = PrinterActionDaemonTests.serviceCalls(ha).compactMap { ($0["target"] as? [String: Any])?["entity_id"] as? String }
        #expect(pressed == ["button.\(Self.x1c)_pause_printing", "button.\(Self.x1c)_stop_printing"], "HA's buttons: \(pressed)")

        // The phone leaves home: the home network's path goes away; the outside URL (the proxy's CA certificate) is the agent.
        relay.kill()
        FileManager.default.createFile(atPath: holds + "/paused", contents: nil)
        #expect(try await waitUntil(upTo: 30, asking: { self.alert(apns, "print_complete")?["snapshotURL"] != nil }))
        // Nothing answers at the home address now: the outside one does.
        walk = try phone(["history"], set: ["printer": Self.x1c], extra: phoneNetwork)
        #expect(walk.ok && walk.step("history")["base"] as? String == "https://\(Self.outsideName):\(proxy.port)", "\(walk.lines)")
        #expect((walk.step("history")["unreachable"] as? [String])?.count == 1, "home tried first: \(walk.step("history"))")
        // The print as the phone was told it, each alert about it with its history id.
        let told = alerts(apns).compactMap { $0["printerState"] as? [String: Any] }.filter { $0["printId"] != nil }
        #expect(told.first?["type"] as? String == "print_started")
        for kind in ["print_started", "progress_milestone", "print_paused", "print_resumed", "print_complete"] {
            #expect(told.contains { $0["type"] as? String == kind }, "\(kind): \(told.map { $0["type"] ?? "" })")
        }
        #expect(Set(told.compactMap { $0["printId"] as? String }).count == 1, "one print, one id")
        // Back on the road: another network's machine at the home address shows a certificate a CA vouches
        // for, but not the paired one; the phone goes on to the outside address without telling it anything.
        let stranger = DaemonTests.temporaryDirectory("stranger") + "/bytes.log"
        let impostor = try MockProcess(script: Self.script + "/network.py", arguments: [
            "--mode", "proxy", "--listen", lan, "--port", String(relay.port), "--target", "127.0.0.1:\(apiPort)",
            "--name", Self.outsideName, "--log", stranger,
        ])
        let complete = try #require(alert(apns, "print_complete"))
        // The extension is a process of its own: its AgentLink starts at home, then goes outside.
        walk = try phone(["snapshot"], set: ["snapshotURL": try #require(complete["snapshotURL"] as? String)],
                         extra: phoneNetwork + ["--fresh"])
        #expect(walk.ok, "\(walk.lines)")
        #expect(walk.step("snapshot")["type"] as? String == "image/png")
        #expect((walk.step("snapshot")["unreachable"] as? [String])?.first?.contains("not the paired one") == true,
                "home tried first, and refused: \(walk.step("snapshot"))")
        let sentToTheStranger = (try? String(contentsOfFile: stranger, encoding: .utf8))?.split(separator: "\n") ?? []
        #expect(!sentToTheStranger.isEmpty && sentToTheStranger.allSatisfy { $0 == "0" },
                "the other machine got not a byte of a request (the credential included): \(sentToTheStranger)")
        _ = impostor
        // The app itself goes on where it last reached the agent: outside.
        walk = try phone(["history", "statistics", "alerts"], set: ["printer": Self.x1c, "timeZone": "Europe/Berlin"], extra: phoneNetwork)
        #expect(walk.ok, "\(walk.lines)")
        #expect(walk.lines.allSatisfy { $0["base"] as? String == "https://\(Self.outsideName):\(proxy.port)" }, "from outside: \(walk.lines)")
        let printID = (complete["printerState"] as? [String: Any])?["printId"] as? String
        #expect("\(walk.step("history")["json"] ?? "")".contains(printID ?? "none"), "the alert's print in the history")
        #expect(walk.step("statistics")["status"] as? Int == 200)
        #expect("\(walk.step("alerts")["json"] ?? "")".contains("Print Complete"), "the alerts list")
        // The Live Activity followed the print on the token the phone registered.
        // Its end is a push of its own beside the complete alert, maybe after it: wait for it.
        func activity() -> [String] {
            apns.requests().filter { $0["token"] as? String == Self.activityToken }.compactMap { $0["activity_event"] as? String }
        }
        #expect(await waitUntil(upTo: 30, asking: { activity().last == "end" }))
        #expect(activity().contains("update") && activity().last == "end",
                "\(activity()): \(apns.requests().map { "\($0["token"] ?? "") \($0["push_type"] ?? "") \($0["activity_event"] ?? "")" })")
    }

    /// The walked exchanges and the Swift beside them say the same: each
    /// step's method and path is an `AgentLink` call in docs/app.md or
    /// docs/notifications.md (a segment the walk fills in may be any
    /// interpolation there), its body's keys are the Swift's, and nothing
    /// in docs/ reaches the agent but through `AgentLink`.
    @Test func theSwiftInTheDocsMakesTheWalkedExchanges() throws {
        let app = try String(contentsOfFile: DaemonTests.root + "/docs/app.md", encoding: .utf8)
        let notifications = try String(contentsOfFile: DaemonTests.root + "/docs/notifications.md", encoding: .utf8)
        let swift = [app, notifications].flatMap { doc in
            doc.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        }.joined(separator: "\n")
        let walks = app.components(separatedBy: "<!-- walk: ").dropFirst()
        #expect(walks.count >= 12, "the walk's steps")
        for walk in walks {
            let name = String(walk.prefix { $0 != " " })
            let block = walk.components(separatedBy: "```http\n").dropFirst().first?.components(separatedBy: "```")[0] ?? ""
            let request = block.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
            let method = String(request.prefix { $0 != " " })
            let path = String(request.dropFirst(method.count + 1).drop { $0 == "/" })
            if path == "{{snapshotURL}}" {
                #expect(swift.contains("download("), "\(name): the picture through AgentLink.download")
                continue
            }
            // Each segment literal, or any Swift interpolation where the walk fills one in or the Swift does.
            let interpolation = #"\\\([^)]*\)"#  // `\(…)` in the Swift's source
            let segments = path.split(separator: "/").map { segment -> String in
                var literal = "", rest = String(segment)
                while let placeholder = rest.range(of: #"\{\{\w+\}\}"#, options: .regularExpression) {
                    literal += NSRegularExpression.escapedPattern(for: String(rest[..<placeholder.lowerBound])) + interpolation
                    rest = String(rest[placeholder.upperBound...])
                }
                literal += NSRegularExpression.escapedPattern(for: rest)
                return "(?:\(literal)|\(interpolation))"
            }
            let call = #"send\("\#(method)", "\#(segments.joined(separator: "/"))""#
            #expect(swift.range(of: call, options: .regularExpression) != nil, "\(name): no `\(method) \(path)` through AgentLink in the docs' Swift")
            let body = block.components(separatedBy: "\n\n").dropFirst().joined()
            for key in body.matches(of: /"(\w+)":/).map({ String($0.output.1) }) {
                #expect(swift.contains("\"\(key)\":"), "\(name): the body's \(key) is not in the Swift")
            }
        }
        // One pinned way to the agent: no shared or unpinned session, no plain-HTTP pairing text.
        for (file, text) in [("app.md", app), ("notifications.md", notifications),
                             ("pairing.md", try String(contentsOfFile: DaemonTests.root + "/docs/pairing.md", encoding: .utf8))] {
            let code = text.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }.joined()
            #expect(!code.contains("URLSession.shared"), "\(file)")
            #expect(code.components(separatedBy: "URLSession(configuration:").count <= 2 && !code.contains("URLSession(configuration: configuration)"),
                    "\(file): a session of its own beside AgentLink's")
            #expect(!text.contains("NSAllowsLocalNetworking"), "\(file): an ATS exception")
            #expect(!text.contains("prints `http://"), "\(file): pairing prints https")
        }
    }

    /// The status page's "Pair a phone", as the admin's browser posts it
    /// (over TLS on the machine itself): the QR code's PNG, saved.
    func pairingQR(port: Int) throws -> String {
        func curl(_ arguments: [String]) throws -> String {
            try CommandRunner.execute("/usr/bin/curl", ["-s", "--insecure", "--max-time", "10", "-u", "admin:\(DaemonTests.apiToken)"]
                + arguments, directory: "/").stdout
        }
        let page = try curl(["https://127.0.0.1:\(port)/"])
        let marker = try #require(page.range(of: #"name="form" value=""#), "the status page: \(page.prefix(300))")
        let token = String(page[marker.upperBound...].prefix { $0 != "\"" })
        let pairing = try curl(["-H", "Origin: https://127.0.0.1:\(port)", "--data", "form=\(token)", "https://127.0.0.1:\(port)/pairing-code"])
        let base64 = try #require(pairing.components(separatedBy: "data:image/png;base64,").dropFirst().first?.prefix { $0 != "\"" })
        let path = DaemonTests.temporaryDirectory("pairing-qr") + "/qr.png"
        try Data(base64Encoded: String(base64))!.write(to: URL(fileURLWithPath: path))
        return path
    }
}
