import APNsClient
import Foundation
import PrintBridgeCore
import Synchronization

/// A mock APNs server (MockAPNs/mock_apns.py) on 127.0.0.1, port 0: HTTP/2
/// over TLS with a certificate, CA and APNs key made fresh for each start.
final class MockAPNsServer: Sendable {
    static let teamID = "TEAMID1234"
    static let keyID = "KEYID56789"
    static let bundleID = "com.example.PrinterMonitor"

    let port: Int
    let workdir: String
    private let process: Process
    private let stdin: Pipe

    init(ignoreIAT: Bool = false, benchmark: Bool = false) throws {
        workdir = NSTemporaryDirectory() + "printbridge-apns-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: workdir, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("MockAPNs/mock_apns.py").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--workdir", workdir, "--team-id", Self.teamID, "--key-id", Self.keyID,
                             "--bundle-id", Self.bundleID] + (ignoreIAT ? ["--ignore-iat"] : []) + (benchmark ? ["--benchmark"] : [])
        let stdout = Pipe()
        stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { throw MockError.didNotStart }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5).prefix { $0.isNumber }) else { throw MockError.didNotStart }
        self.port = port
    }

    deinit {
        process.terminate()
        try? FileManager.default.removeItem(atPath: workdir)
    }

    enum MockError: Error { case didNotStart }

    var keyPath: String { workdir + "/AuthKey_TEST.p8" }

    var configuration: APNsConfiguration {
        APNsConfiguration(
            teamID: Self.teamID, keyID: Self.keyID, keyPath: keyPath, bundleID: Self.bundleID,
            baseURL: "https://127.0.0.1:\(port)", caFile: workdir + "/ca.pem")
    }

    /// What the server has seen (connections, requests, provider tokens, rejections).
    func stats() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: workdir + "/stats.json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    func stat(_ name: String) throws -> Int { try stats()[name] as? Int ?? -1 }
}

/// Records the back-off waits instead of sleeping them.
final class SleepRecorder: Sendable {
    private let waits = Mutex<[Double]>([])
    var recorded: [Double] { waits.withLock { $0 } }
    var sleep: @Sendable (Double) async -> Void {
        { [self] seconds in waits.withLock { $0.append(seconds) } }
    }
}

/// Token rejections the sender reported.
final class RejectionRecorder: Sendable {
    private let items = Mutex<[(String, PushOutcome.TokenAction, String)]>([])
    var recorded: [(String, PushOutcome.TokenAction, String)] { items.withLock { $0 } }
    var callback: APNsSender.TokenRejection {
        { [self] push, action, reason in items.withLock { $0.append((push.token, action, reason)) } }
    }
}

/// A device token with a behaviour prefix (see mock_apns.py): hex, 64 digits.
func token(_ prefix: String, _ salt: Int = 0) -> String {
    let tail = String(format: "%08x", salt) + String(repeating: "0", count: 64)
    return String((prefix + tail).prefix(64))
}

func alertPush(to token: String, bundle: String = MockAPNsServer.bundleID) -> Push {
    let payload = try! AlertPayload(event: .complete, prefix: "x1c", printerName: "X1C", fileName: "benchy.3mf",
                                    status: .complete, progress: 100).encoded()
    let now = SystemClock().now()
    return Push(kind: .alert, event: .complete, printerPrefix: "x1c", deviceID: "phone", token: token, tokenKind: .device,
                topic: bundle, priority: 10, collapseID: "x1c.complete", expiration: now + 3600, payload: payload,
                createdAt: now)
}

func liveActivityPush(to token: String) -> Push {
    let state = SampleState.running
    let now = SystemClock().now()
    let payload = try! LiveActivityPayload.update(state, at: now, staleAfter: 900).encoded()
    return Push(kind: .liveActivity, event: .update, printerPrefix: "x1c", deviceID: "phone", token: token,
                tokenKind: .activity, topic: MockAPNsServer.bundleID + ".push-type.liveactivity", priority: 5,
                collapseID: "x1c.activity", expiration: now + 900, payload: payload, createdAt: now)
}

import PrinterActivityContent

enum SampleState {
    static let running = PrinterActivityAttributes.ContentState(
        progress: 42, currentLayer: 100, totalLayers: 250, remainingSeconds: 1800, status: "running", nozzleTemp: 220,
        bedTemp: 65)
}
