import APNsClient
import Foundation
import Synchronization

/// A mock APNs server (MockAPNs/mock_apns.py) on 127.0.0.1, port 0: HTTP/2
/// over TLS with a certificate, CA and APNs key made fresh for each start.
public final class MockAPNsServer: Sendable {
    public static let teamID = "TEAMID1234"
    public static let keyID = "KEYID56789"
    public static let bundleID = "com.example.PrinterMonitor"

    public let port: Int
    /// The channel management API's port (Apple's is a host and port of its own).
    public let managePort: Int
    public let workdir: String
    private let mock: MockProcess

    /// - Parameter recording: log every request (token, apns-id, push type,
    ///   event) for `requests()`.
    /// - Parameter restarting: a stopped server whose port, keys and request
    ///   record this one takes over (APNs back after an outage).
    public init(
        ignoreIAT: Bool = false, benchmark: Bool = false, recording: Bool = false, restarting: MockAPNsServer? = nil,
        channelLimit: Int? = nil
    ) throws {
        workdir = restarting?.workdir ?? NSTemporaryDirectory() + "printbridge-apns-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: workdir, withIntermediateDirectories: true)
        let script = CommandRunner.repositoryRoot(from: #filePath) + "/Tests/APNsClientTests/MockAPNs/mock_apns.py"
        mock = try MockProcess(script: script, arguments: [
            "--workdir", workdir, "--team-id", Self.teamID, "--key-id", Self.keyID, "--bundle-id", Self.bundleID,
        ] + (ignoreIAT ? ["--ignore-iat"] : []) + (benchmark ? ["--benchmark"] : [])
            + (recording ? ["--record", workdir + "/requests.jsonl"] : [])
            + (channelLimit.map { ["--channel-limit", String($0)] } ?? [])
            + (restarting.map { ["--port", String($0.port), "--manage-port", String($0.managePort), "--keep-fixtures"] } ?? []))
        port = mock.port
        // Written before the push port is printed.
        managePort = Int((try? String(contentsOfFile: workdir + "/manage-port", encoding: .utf8)) ?? "") ?? 0
        restarting?.ownsWorkdir.withLock { $0 = false }
    }

    private let ownsWorkdir = Mutex(true)

    deinit {
        if ownsWorkdir.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: workdir) }
    }

    /// Stops the server at once: connections are refused until another takes over.
    public func stop() { mock.kill() }

    /// From now on, the connections open now never answer anything (a black
    /// hole); new connections work.
    public func blackHoleOpenConnections() {
        FileManager.default.createFile(atPath: workdir + "/blackhole", contents: nil)
    }


    public var keyPath: String { workdir + "/AuthKey_TEST.p8" }

    public var configuration: APNsConfiguration {
        APNsConfiguration(
            teamID: Self.teamID, keyID: Self.keyID, keyPath: keyPath, bundleID: Self.bundleID,
            baseURL: "https://127.0.0.1:\(port)", caFile: workdir + "/ca.pem",
            channelBaseURL: "https://127.0.0.1:\(managePort)")
    }

    /// The APNS_* environment for `printbridge` to use this server.
    public var environment: [String: String] {
        ["APNS_TEAM_ID": Self.teamID, "APNS_KEY_ID": Self.keyID, "APNS_KEY_PATH": keyPath, "APNS_BUNDLE_ID": Self.bundleID,
         "APNS_BASE_URL": "https://127.0.0.1:\(port)", "APNS_CA_FILE": workdir + "/ca.pem",
         "APNS_CHANNELS_BASE_URL": "https://127.0.0.1:\(managePort)"]
    }

    /// What the server has seen (connections, requests, provider tokens, rejections).
    public func stats() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: workdir + "/stats.json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    public func stat(_ name: String) throws -> Int { try stats()[name] as? Int ?? -1 }

    /// The channels APNs keeps for the app now (channels.json).
    public func channels() -> [String] {
        guard let data = FileManager.default.contents(atPath: workdir + "/channels.json"),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [] }
        return object.keys.sorted()
    }

    /// Every channel management request so far: method, path, channel_id,
    /// request_id, status, reason.
    public func channelRequests() throws -> [[String: Any]] {
        try stats()["channel_requests"] as? [[String: Any]] ?? []
    }

    /// The next `times` channel management requests (nil: every one) are
    /// answered `status` with Apple's `reason`, before any check.
    public func failChannelManagement(status: Int, reason: String, times: Int?) {
        let line = "\(status) \(reason) \(times.map(String.init) ?? "f")\n"
        FileManager.default.createFile(atPath: workdir + "/manage-faults", contents: Data(line.utf8))
    }

    /// Channel management works again.
    public func clearChannelFaults() {
        try? FileManager.default.removeItem(atPath: workdir + "/manage-faults")
    }

    /// Every request so far, when started with `recording`: token, apns_id,
    /// push_type, event (printerState.type), progress, activity_event (aps.event),
    /// collapse_id, priority (as sent: text), received_at (epoch seconds), payload.
    public func requests() -> [[String: Any]] {
        let text = (try? String(contentsOfFile: workdir + "/requests.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

