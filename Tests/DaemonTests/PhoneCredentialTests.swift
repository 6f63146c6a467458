import Foundation
import FoundationNetworking
import Testing
import TestSupport

/// A credential per phone through `run` (issue 34): a one-time pairing code
/// traded for the phone's own credential, used for what only a phone or the
/// admin may do (printer actions, its own alerts), limited to its own
/// device, revoked at once, while a trusted network keeps only what the
/// unmodified seed app needs.
@Suite struct PhoneCredentialTests {
    static func call(
        _ port: Int, _ method: String, _ path: String, body: String? = nil, bearer: String? = nil
    ) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0,
                (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    /// `printbridge pair` beside the running agent: the code it printed.
    static func pairingCode(_ agent: DaemonTests.Agent, port: Int) throws -> String {
        let result = try CommandRunner.run(["pair", "--out", agent.stateDirectory + "/pair.png"], environment: [
            "STATE_DIR": agent.stateDirectory, "API_LISTEN": "127.0.0.1:\(port)", "API_TOKEN": DaemonTests.apiToken,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("Pairing code: ") })
        return String(line.dropFirst("Pairing code: ".count).prefix(9))
    }

    /// A phone paired with the running agent: `printbridge pair`'s code traded for its credential.
    static func pairedCredential(_ agent: DaemonTests.Agent, port: Int) async throws -> String {
        let code = try pairingCode(agent, port: port)
        let paired = try await call(port, "POST", "/api/pair", body: #"{"code":"\#(code)"}"#)
        return try #require(paired.json["credential"] as? String, "\(paired)")
    }

    @Test func aPhonePairsActsForItselfOnlyAndIsRevokedAtOnce() async throws {
        let events = try PrinterActionDaemonTests.midPrintEvents()
        defer { try? FileManager.default.removeItem(atPath: events) }
        let ha = try DaemonTests.MockHA(events: events)
        // The seed app's networks trusted, as today's settings have it.
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: ["API_TRUSTED_NETWORKS": "127.0.0.1/32"])
        defer { _ = agent.stop() }
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        let port = try #require(agent.apiPort)

        // The code, traded once for the phone's own credential.
        let code = try Self.pairingCode(agent, port: port)
        let paired = try await Self.call(port, "POST", "/api/pair", body: #"{"code":"\#(code.lowercased())","name":"Sam's iPhone"}"#)
        #expect(paired.status == 201, "\(paired.json)")
        let credential = try #require(paired.json["credential"] as? String)
        #expect(credential.hasPrefix("pbp_") && credential.count > 40)
        let again = try await Self.call(port, "POST", "/api/pair", body: #"{"code":"\#(code)"}"#)
        #expect(again.status == 401 && (again.json["error"] as? String)?.contains("Unknown or expired pairing code") == true)

        // It registers the phone (and is bound to it), and presses the printer's button.
        let phone = String(repeating: "5a", count: 32)
        let registered = try await Self.call(port, "POST", "/api/devices/register",
            body: #"{"apnsToken":"\#(phone)","haUrl":"http://ha:8123","printerPrefix":"x1c_00m09a350100123"}"#, bearer: credential)
        let device = try #require(registered.json["deviceId"] as? String, "\(registered)")
        let pause = try await Self.call(port, "POST", "/api/printers/x1c_00m09a350100123/actions/pause", bearer: credential)
        #expect(pause.status == 200, "\(pause.json)")
        #expect(agent.logged("printer action").first?["api.caller"] as? String == "phone \(paired.json["credentialId"] as? String ?? "")")

        // Its own settings and alerts yes; another phone's no.
        let other = try #require(
            try await Self.call(port, "POST", "/api/devices/register",
                body: #"{"apnsToken":"\#(String(repeating: "6b", count: 32))","haUrl":"http://ha:8123"}"#,
                bearer: DaemonTests.apiToken).json["deviceId"] as? String)
        #expect(try await Self.call(port, "PATCH", "/api/devices/\(device)/settings", body: #"{"onMilestone":false}"#, bearer: credential).status == 200)
        let foreign = try await Self.call(port, "PATCH", "/api/devices/\(other)/settings", body: #"{"onMilestone":false}"#, bearer: credential)
        #expect(foreign.status == 403, "\(foreign.json)")
        #expect(try await Self.call(port, "GET", "/api/notifications?device=\(device)", bearer: credential).status == 200)
        #expect(try await Self.call(port, "GET", "/api/notifications?device=\(other)", bearer: credential).status == 403)
        #expect(try await Self.call(port, "DELETE", "/api/devices/\(other)", bearer: credential).status == 403)
        // (LocalHTTP: URLSession on Linux waits for a delegate on a Basic challenge.)
        #expect(LocalHTTP.get(port: port, "/", headers: ["Authorization": "Bearer \(credential)"])?.status == 401,
                "the status page is the admin's")

        // A trusted network keeps what the unmodified seed app needs, and nothing more.
        let seed = try await Self.call(port, "POST", "/api/devices/register",
            body: #"{"apnsToken":"\#(String(repeating: "7c", count: 32))","haUrl":"http://ha:8123"}"#)
        #expect(seed.status == 200, "\(seed.json)")
        #expect(try await Self.call(port, "POST", "/api/printers/x1c_00m09a350100123/actions/stop").status == 401)
        #expect(try await Self.call(port, "GET", "/api/notifications?device=\(device)").status == 401)
        #expect(try await Self.call(port, "GET", "/api/devices/by-printer/x1c_00m09a350100123").status == 401)
        let calls = PrinterActionDaemonTests.serviceCalls(ha)
        #expect(calls.count == 1, "only the phone's pause reached HA: \(calls)")
        // Upgrading: the old ways in still work, and the log says once a day what to change.
        for _ in 0..<2 {
            let shared = try CommandRunner.execute("/usr/bin/curl", [
                "-sS", "--interface", "127.0.0.3", "-H", "Authorization: Bearer \(DaemonTests.apiToken)",
                "http://127.0.0.1:\(port)/api/printers",
            ], directory: "/")
            #expect(shared.stdout.contains(#""success":true"#), "\(shared.stderr)")
        }
        #expect(agent.logged("a phone uses the shared API token (the admin credential); pair it for its own (printbridge pair), which can be revoked alone")
            .map { $0["api.peer"] as? String } == ["127.0.0.3"])
        #expect(agent.logged("a device on API_TRUSTED_NETWORKS used the API without a credential; pair the app (printbridge pair), then remove API_TRUSTED_NETWORKS").count == 1)

        // Revoked from the machine: refused at its next request, the other phone's untouched.
        let revoke = try CommandRunner.run(["devices", "revoke", device], environment: ["STATE_DIR": agent.stateDirectory])
        #expect(revoke.status == 0 && revoke.stdout.contains("1 credential(s) revoked"), "\(revoke.stderr)")
        #expect(try await Self.call(port, "POST", "/api/printers/x1c_00m09a350100123/actions/stop", bearer: credential).status == 401)
        #expect(try await Self.call(port, "GET", "/api/notifications?device=\(other)", bearer: DaemonTests.apiToken).status == 200)
        #expect(!agent.log.contains(credential), "a phone's credential is never logged")
    }

    @Test func aPhonesActionFloodIsItsOwnAndItSignsItselfOut() async throws {
        let events = try PrinterActionDaemonTests.midPrintEvents()
        defer { try? FileManager.default.removeItem(atPath: events) }
        let ha = try DaemonTests.MockHA(events: events)
        let agent = try DaemonTests.Agent(port: ha.port, devices: try DaemonTests.devicesFile())
        defer { _ = agent.stop() }
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        let port = try #require(agent.apiPort)
        let credential = try await Self.pairedCredential(agent, port: port)
        let device = try #require(try await Self.call(port, "POST", "/api/devices/register",
            body: #"{"apnsToken":"\#(String(repeating: "5a", count: 32))","haUrl":"http://ha:8123"}"#, bearer: credential)
            .json["deviceId"] as? String)
        // A flood from the phone is limited per phone (10, then 429); the admin from the same address is not held up.
        // (One more is allowed every 6 s: on a busy machine the flood may earn one or two.)
        var statuses: [Int] = []
        let began = Date()
        // Pressed until refused, or until more than the limit allows by now (so a slow machine, where
        // each press can take seconds, earns its extra presses rather than failing the count).
        while statuses.last != 429, statuses.count <= 11 + Int(Date().timeIntervalSince(began) / 6) {
            statuses.append(try await Self.call(port, "POST", "/api/printers/x1c_00m09a350100123/actions/stop", bearer: credential).status)
        }
        let earned = Int(Date().timeIntervalSince(began) / 6)
        #expect(statuses.last == 429 && statuses.dropLast().allSatisfy { $0 == 200 }, "\(statuses)")
        #expect((10...10 + earned).contains(statuses.count - 1), "\(statuses.count - 1) pressed in \(Date().timeIntervalSince(began)) s")
        #expect(try await Self.call(port, "POST", "/api/printers/x1c_00m09a350100123/actions/stop", bearer: DaemonTests.apiToken).status == 200)
        #expect(try await Self.call(port, "DELETE", "/api/devices/\(device)/credential", bearer: credential).status == 200)
        #expect(try await Self.call(port, "GET", "/api/notifications?device=\(device)", bearer: credential).status == 401)
        #expect(try await Self.call(port, "DELETE", "/api/devices/\(device)/credential", bearer: DaemonTests.apiToken).status == 404)
        _ = ha
    }
}
