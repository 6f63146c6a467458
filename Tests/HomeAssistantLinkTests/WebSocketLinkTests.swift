import Foundation
@testable import HomeAssistantLink
import TestSupport
import Testing

/// The link over libwebsockets' own WebSocket client, against a server that
/// writes its answers byte by byte (Tests/DaemonTests/MockHA/upgrade_server.py):
/// a refused upgrade is a failed connect that says what HA answered, an
/// unanswered one waits the link's own timeout; a server's ping is answered
/// with its payload, and its close with ours (1000).
@Suite(.serialized) struct WebSocketLinkTests {
    static let root = CommandRunner.repositoryRoot(from: #filePath)

    /// The link's events until its first disconnect.
    static func untilDisconnected(_ link: HomeAssistantLink) async -> [LinkEvent] {
        var seen: [LinkEvent] = []
        for await event in link.events {
            seen.append(event)
            if case .disconnected = event { break }
        }
        return seen
    }

    static func stats(_ path: String) -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }

    @Test func aRefusedUpgradeIsAFailedConnectWithHAsStatus() async throws {
        let server = try MockProcess(script: Self.root + "/Tests/DaemonTests/MockHA/upgrade_server.py", arguments: ["--status", "404"])
        let link = HomeAssistantLink(endpoint: try HAEndpoint(url: "ws://127.0.0.1:\(server.port)/api/websocket"), accessToken: "t")
        try link.start()
        let events = await Self.untilDisconnected(link)
        link.stop()
        guard case .disconnected(let cause)? = events.last else {
            Issue.record("no disconnect: \(events)")
            return
        }
        #expect(cause == .connectFailed("Home Assistant answered 404 to the WebSocket upgrade (no WebSocket API at that path)"))
        #expect(!events.contains { if case .connected = $0 { true } else { false } })
    }

    /// A server that takes the upgrade request and never answers: the link
    /// waits `upgradeTimeout` (20 s), not libwebsockets' 5 s, then says so.
    @Test func anUnansweredUpgradeIsWaitedForItsTimeout() async throws {
        let server = try MockProcess(script: Self.root + "/Tests/DaemonTests/MockHA/silent_server.py", arguments: [])
        let link = HomeAssistantLink(endpoint: try HAEndpoint(url: "ws://127.0.0.1:\(server.port)/api/websocket"), accessToken: "t")
        let started = Date()
        try link.start()
        let events = await Self.untilDisconnected(link)
        let waited = Date().timeIntervalSince(started)
        link.stop()
        guard case .disconnected(let cause)? = events.last else {
            Issue.record("no disconnect: \(events)")
            return
        }
        #expect(cause == .connectFailed(
            "Home Assistant closed the connection, or did not answer within 20 s, during the WebSocket upgrade"))
        #expect(waited >= 15 && waited < 40, "gave up after \(waited) s")
        withExtendedLifetime(server) {}
    }

    @Test func aPingIsAnsweredAndACloseClosesPolitely() async throws {
        let stats = NSTemporaryDirectory() + "printbridge-upgrade-\(UUID().uuidString.prefix(8)).json"
        defer { try? FileManager.default.removeItem(atPath: stats) }
        let server = try MockProcess(
            script: Self.root + "/Tests/DaemonTests/MockHA/upgrade_server.py", arguments: ["--ping-close", "--stats", stats])
        let link = HomeAssistantLink(endpoint: try HAEndpoint(url: "ws://127.0.0.1:\(server.port)/api/websocket"), accessToken: "t")
        try link.start()
        let events = await Self.untilDisconnected(link)
        link.stop()
        #expect(events.contains { if case .connected = $0 { true } else { false } }, "\(events)")
        guard case .disconnected(let cause)? = events.last else {
            Issue.record("no disconnect: \(events)")
            return
        }
        #expect(cause == .closed)
        // The server writes down the link's close once it has read it.
        var seen = Self.stats(stats)
        for _ in 0..<200 where seen["close_code"] as? Int == nil {  // up to 20 s: a busy machine
            try await Task.sleep(nanoseconds: 100_000_000)
            seen = Self.stats(stats)
        }
        #expect(seen["pong"] as? String == "p1", "\(seen)")
        #expect(seen["close_code"] as? Int == 1000, "\(seen)")
        withExtendedLifetime(server) {}
    }
}
