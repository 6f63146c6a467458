import Foundation
import FoundationNetworking
import Testing
import TestSupport

/// Pictures of the print through `run` (issue 31): the agent asks (mock) HA's
/// camera proxy with its token, puts the signed link in the alert, serves
/// the picture by that link, and never holds an alert back for a camera
/// that is missing, off, slow, broken or not a camera at all.
@Suite struct SnapshotDaemonTests {
    static let camera = "camera.x1c_00m09a350100123_camera"

    static func get(_ port: Int, _ path: String, token: String? = nil) async throws -> (Int, Data, [AnyHashable: Any]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, data, http.allHeaderFields)
    }

    /// A payload as the log (JSON text) or the APNs mock's record (an object) has it.
    static func json(_ text: Any?) -> [String: Any] {
        if let object = text as? [String: Any] { return object }
        guard let text = text as? String else { return [:] }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    static func cameraRequests(_ ha: DaemonTests.MockHA) -> [[String: Any]] {
        ha.rawStats()["camera_requests"] as? [[String: Any]] ?? []
    }

    @Test func theCompleteAlertCarriesThePictureAndItsLinkServesIt() async throws {
        let apns = try MockAPNsServer(recording: true)
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--camera", "\(Self.camera)=jpeg"])
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: apns.environment, dryRun: false)
        #expect(agent.wait(upTo: 30) {
            agent.pushes.contains { $0["event"] as? String == "complete" && $0["outcome"] as? String == "delivered" }
        })
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        let port = try #require(agent.apiPort)

        // APNs took the alert with the picture (the mock checks mutable-content's type).
        let alerts = apns.requests().filter { $0["push_type"] as? String == "alert" }
        let complete = try #require(alerts.first { $0["event"] as? String == "print_complete" }, "\(alerts)")
        let payload = Self.json(complete["payload"])
        #expect((payload["aps"] as? [String: Any])?["mutable-content"] as? Int == 1, "\(payload)")
        let link = try #require(payload["snapshotURL"] as? String)
        #expect(link.hasPrefix("/api/snapshots/") && link.contains(".jpg?expires=") && link.contains("&sig="))
        for other in alerts where other["event"] as? String != "print_complete" {
            let body = Self.json(other["payload"])
            #expect(body["snapshotURL"] == nil && (body["aps"] as? [String: Any])?["mutable-content"] == nil,
                    "a start or milestone goes without: \(other["event"] ?? "")")
        }
        // HA was asked once, with the agent's token, at its camera proxy.
        let asked = Self.cameraRequests(ha)
        #expect(asked.count == 1, "\(asked)")
        #expect(asked.first?["path"] as? String == "/api/camera_proxy/\(Self.camera)")
        #expect(asked.first?["authorized"] as? Bool == true)

        // The link serves the picture without the API token; a tampered one does not.
        let (status, data, headers) = try await Self.get(port, link)
        #expect(status == 200 && headers["Content-Type"] as? String == "image/jpeg")
        #expect(Array(data.prefix(3)) == [0xFF, 0xD8, 0xFF])
        let (forged, _, _) = try await Self.get(port, link.replacingOccurrences(of: "sig=", with: "sig=x"))
        #expect(forged == 403)

        // The phone's history keeps the link; the status page shows the picture; metrics count it.
        // (The store writes the sent alert after APNs's answer, which the log showed: wait for it.)
        let device = try #require(Self.deviceID(agent.stateDirectory))
        var items: [[String: Any]] = []
        #expect(try await waitUntil(upTo: 30, asking: {
            let (_, history, _) = try await Self.get(port, "/api/notifications?device=\(device)", token: DaemonTests.apiToken)
            items = (try JSONSerialization.jsonObject(with: history) as? [String: Any])?["notifications"] as? [[String: Any]] ?? []
            return items.contains { $0["kind"] as? String == "complete" }
        }), "\(items)")
        #expect(items.first { $0["kind"] as? String == "complete" }?["snapshot"] as? String == link, "\(items)")
        #expect(items.first { $0["kind"] as? String == "started" }?["snapshot"] is NSNull)
        let (_, page, _) = try await Self.get(port, "/", token: DaemonTests.apiToken)
        #expect(String(decoding: page, as: UTF8.self).contains(#"<img src="\#(link.dropFirst().replacingOccurrences(of: "&", with: "&amp;"))""#))
        #expect(agent.metric("printbridge_snapshots_total", containing: #"outcome="taken""#) == 1)
        #expect(agent.stop() == 0)
        #expect(agent.logged("picture taken for the alert").first?["ha.entity_id"] as? String == Self.camera)
        #expect(!agent.log.contains(DaemonTests.token), "the HA token is never logged")
        // The picture is kept under the state directory, readable by the agent alone.
        let files = try FileManager.default.contentsOfDirectory(atPath: agent.stateDirectory + "/snapshots")
        #expect(files.count == 1 && link.contains(files[0]))
        let mode = try FileManager.default.attributesOfItem(atPath: agent.stateDirectory + "/snapshots/" + files[0])[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    static func deviceID(_ state: String) -> String? {
        guard let listed = try? CommandRunner.run(["devices", "list", "--format", "json"], environment: ["STATE_DIR": state])
        else { return nil }
        // One JSON object a line.
        let first = listed.stdout.split(separator: "\n").first.map(String.init) ?? ""
        return ((try? JSONSerialization.jsonObject(with: Data(first.utf8))) as? [String: Any])?["id"] as? String
    }

    /// What the camera does, what the log and metric say: the complete
    /// alert goes anyway, without a picture, and not late.
    static let brokenCameras: [(mode: String, reason: String)] = [
        ("status:503", "http_503"), ("status:500", "http_500"), ("slow:20", "timeout"), ("huge:20", "too_large"),
        ("endless", "too_large"), ("html", "not_an_image"), ("fake", "not_an_image"),
    ]

    @Test(arguments: brokenCameras)
    func aCameraThatFailsNeverHoldsTheAlertBack(mode: String, reason: String) throws {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--camera", "\(Self.camera)=\(mode)"])
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: ["SNAPSHOT_TIMEOUT": "1.5"])
        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") })
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.wait(upTo: 10) { agent.metric("printbridge_snapshots_total", containing: #"reason="\#(reason)""#) == 1 },
                "\(mode): \(agent.logged("the alert goes without a picture"))")
        #expect(agent.stop() == 0)
        #expect(agent.alerts == DaemonTests.fullPrintAlerts, "nothing lost, nothing twice")
        let complete = try #require(agent.pushes.first { $0["event"] as? String == "complete" })
        let payload = Self.json(complete["payload"])
        #expect(payload["snapshotURL"] == nil && (payload["aps"] as? [String: Any])?["mutable-content"] == nil)
        let said = agent.logged("the alert goes without a picture")
        #expect(said.count == 1 && said.first?["snapshot.reason"] as? String == reason, "\(said)")
        // Not late: the alert went within the picture's deadline (1.5 s) of the print's end.
        let ended = try #require(agent.records.first { $0["message"] as? String == "print ended" }?["timestamp"] as? String)
        let sent = try #require(agent.records.first {
            ($0["message"] as? String)?.hasPrefix("push ") == true && $0["push.event"] as? String == "complete"
        }?["timestamp"] as? String)
        let delay = try #require(Self.seconds(sent)) - (try #require(Self.seconds(ended)))
        #expect(delay < 1.5 + 1.0, "\(mode): the alert waited \(delay) s")
        #expect(try FileManager.default.contentsOfDirectory(atPath: agent.stateDirectory + "/snapshots").isEmpty)
    }

    /// Seconds from the log's "print ended" to the complete alert's push.
    static func alertDelay(_ agent: DaemonTests.Agent) throws -> Double {
        let ended = try #require(agent.records.first { $0["message"] as? String == "print ended" }?["timestamp"] as? String)
        let sent = try #require(agent.records.first {
            ($0["message"] as? String)?.hasPrefix("push ") == true && $0["push.event"] as? String == "complete"
        }?["timestamp"] as? String)
        return try #require(Self.seconds(sent)) - (try #require(Self.seconds(ended)))
    }

    /// The bundled print against a camera that answers after 6 s, with
    /// `SNAPSHOT_TIMEOUT` at `timeout`: waited for until the snapshot metric
    /// counts `counted` once, stopped, every alert once; the mock HA, the
    /// agent and the complete alert's payload.
    static func fullPrintWithSixSecondCamera(timeout: String, counted: String) throws -> (DaemonTests.MockHA, DaemonTests.Agent, [String: Any]) {
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--camera", "\(Self.camera)=slow:6"])
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: ["SNAPSHOT_TIMEOUT": timeout])
        #expect(agent.wait(upTo: 40) { agent.alerts.contains("ab complete") })
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.wait(upTo: 10) { agent.metric("printbridge_snapshots_total", containing: counted) == 1 },
                "\(agent.logged("the alert goes without a picture"))")
        #expect(agent.stop() == 0)
        #expect(agent.alerts == DaemonTests.fullPrintAlerts, "nothing lost, nothing twice")
        let complete = try #require(agent.pushes.first { $0["event"] as? String == "complete" })
        let payload = Self.json(complete["payload"])
        return (ha, agent, payload)
    }

    /// SNAPSHOT_TIMEOUT is honoured up to its maximum (issue 51): a camera
    /// that answers after 6 s, past libwebsockets' own 5 s wait for an
    /// answer, is waited for when the setting allows 8, and the complete
    /// alert carries its picture.
    @Test func aCameraThatAnswersAfterSixSecondsIsWaitedForUpToTheTimeout() throws {
        let (_, agent, payload) = try Self.fullPrintWithSixSecondCamera(timeout: "8", counted: #"outcome="taken""#)
        let link = try #require(payload["snapshotURL"] as? String, "\(payload)")
        #expect((payload["aps"] as? [String: Any])?["mutable-content"] as? Int == 1)
        #expect(agent.logged("picture taken for the alert").first?["ha.entity_id"] as? String == Self.camera)
        #expect(agent.logged("the alert goes without a picture").isEmpty)
        // The alert waited for the picture (6 s), not for the whole timeout (8 s).
        let delay = try Self.alertDelay(agent)
        #expect(delay >= 5.9 && delay < 8, "the alert waited \(delay) s")
        let files = try FileManager.default.contentsOfDirectory(atPath: agent.stateDirectory + "/snapshots")
        #expect(files.count == 1 && link.contains(files[0]))
    }

    /// A camera slower than SNAPSHOT_TIMEOUT (5.5 s, past libwebsockets' 5 s)
    /// is given up at the timeout, logged and counted as timed out (not
    /// `unreachable`), and the complete alert goes without a picture.
    @Test func aCameraSlowerThanTheTimeoutIsTimedOutAtIt() throws {
        let (ha, agent, payload) = try Self.fullPrintWithSixSecondCamera(timeout: "5.5", counted: #"reason="timeout""#)
        #expect(payload["snapshotURL"] == nil && (payload["aps"] as? [String: Any])?["mutable-content"] == nil)
        let said = agent.logged("the alert goes without a picture")
        #expect(said.count == 1 && said.first?["snapshot.reason"] as? String == "timeout", "\(said)")
        #expect(said.first?["snapshot.detail"] as? String == "\(Self.camera) gave no picture in time", "\(said)")
        #expect(Self.cameraRequests(ha).count == 1)
        // Given up at the timeout, not before (libwebsockets' 5 s) and not much after.
        let delay = try Self.alertDelay(agent)
        #expect(delay >= 5.4 && delay < 5.5 + 1.0, "the alert waited \(delay) s")
        #expect(try FileManager.default.contentsOfDirectory(atPath: agent.stateDirectory + "/snapshots").isEmpty)
    }

    @Test func aPrinterWithoutACameraGetsNoneAndWaitsForNothing() throws {
        // The recording's own camera entity is not in this HA: nothing pictures the printer.
        let ha = try DaemonTests.MockHA(
            events: "bambu-full-print.jsonl", arguments: ["--without", "camera.x1c_00m09a350100123_camera"])
        let devices = NSTemporaryDirectory() + "printbridge-devices-\(UUID().uuidString.prefix(8)).json"
        try #"[{"apnsToken":"\#(String(repeating: "ab", count: 32))"}]"#.write(toFile: devices, atomically: true, encoding: .utf8)
        let agent = try DaemonTests.Agent(port: ha.port, devices: devices)
        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") })
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) })
        #expect(agent.stop() == 0)
        #expect(agent.logged("the alert goes without a picture").first?["snapshot.reason"] as? String == "no_camera")
        #expect(Self.cameraRequests(ha).isEmpty)

        // SNAPSHOTS=off: nothing asked, nothing said, the route says so.
        let quiet = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--camera", "\(Self.camera)=jpeg"])
        let off = try DaemonTests.Agent(port: quiet.port, devices: devices, environment: ["SNAPSHOTS": "off"])
        #expect(off.wait(upTo: 30) { off.alerts.contains("ab complete") })
        #expect(off.wait(upTo: 30) { off.hasReceivedEverything(from: quiet) })
        let port = try #require(off.apiPort)
        let reply = try #require(LocalHTTP.get(port: port, "/api/snapshots/0123456789abcdef0123456789abcdef.jpg?expires=1&sig=x"))
        #expect(reply.status == 404 && reply.body.contains("SNAPSHOTS=off"))
        #expect(off.stop() == 0)
        #expect(Self.cameraRequests(quiet).isEmpty)
        #expect(off.logged("the alert goes without a picture").isEmpty)

        // A phone that turned pictures off: its alerts ask for none.
        let declined = NSTemporaryDirectory() + "printbridge-devices-\(UUID().uuidString.prefix(8)).json"
        try #"[{"apnsToken":"\#(String(repeating: "ab", count: 32))","settings":{"snapshots":false}}]"#
            .write(toFile: declined, atomically: true, encoding: .utf8)
        let camera = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--camera", "\(Self.camera)=jpeg"])
        let phone = try DaemonTests.Agent(port: camera.port, devices: declined)
        #expect(phone.wait(upTo: 30) { phone.alerts.contains("ab complete") })
        #expect(phone.wait(upTo: 30) { phone.hasReceivedEverything(from: camera) })
        #expect(phone.stop() == 0)
        #expect(Self.cameraRequests(camera).isEmpty)
        let payload = Self.json(phone.pushes.first { $0["event"] as? String == "complete" }?["payload"])
        #expect(payload["aps"] != nil && payload["snapshotURL"] == nil)
    }

    /// "2026-11-26T12:00:01.234Z" → seconds of the day (enough for a difference).
    static func seconds(_ timestamp: String) -> Double? {
        let time = timestamp.split(separator: "T").last.map { $0.dropLast() }  // drop "Z"
        let parts = time?.split(separator: ":").compactMap { Double($0) } ?? []
        guard parts.count == 3 else { return nil }
        return parts[0] * 3600 + parts[1] * 60 + parts[2]
    }
}
