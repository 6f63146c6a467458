import Agent
import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Synchronization
import Testing

/// The app's "Send a test notification" (`POST /api/devices/{deviceId}/test-push`)
/// against a running agent: the push is made and queued as alerts are, in
/// the phone's language, reaches the sender, and is in the phone's history
/// with APNs's answer; a phone asking too often is told when to try again.
@Suite struct AgentTestPushTests {
    /// A German phone (the harness's), an API wired to the agent as `run` wires it.
    func api(_ h: AgentHarness, limiter: ActionLimiter) throws -> ControlAPI {
        let id = try #require(try h.store.devices().first).id
        _ = try h.store.register(apnsToken: AgentHarness.phone, haURL: nil, printerPrefix: nil, printerName: nil, language: "de-AT")
        #expect(try h.store.device(id: id)?.language == "de-AT")
        return ControlAPI(
            store: h.store, apiToken: nil, apns: .init(configured: true, bundleID: "b", production: false),
            testPushes: { device, done in h.agent.inbox.testPush(device, done: done) }, testPushLimiter: limiter)
    }

    /// The request as the server runs it: on a thread of its own, waiting for the agent's answer.
    func ask(_ api: ControlAPI, _ device: String) async -> HTTPResponse {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: api.handle(HTTPRequest(method: "POST", path: "/api/devices/\(device)/test-push")))
            }
        }
    }

    func json(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body.utf8))) as? [String: Any] ?? [:]
    }

    @Test func aTestPushGoesThroughTheOutboxInThePhonesLanguageAndIsInItsHistory() async throws {
        let h = try AgentHarness()
        let seconds = Mutex(0.0)
        let api = try api(h, limiter: ControlAPI.testPushLimiter { seconds.withLock { $0 } })
        let device = try #require(try h.store.devices().first).id
        try await withAgent(h) { h, _ in
            let answer = await ask(api, device)
            #expect(answer.status == 202, "\(answer.body)")
            let push = try #require(json(answer)["push"] as? [String: Any])
            #expect(push["title"] as? String == "PrintBridge-Test" && push["language"] as? String == "de")
            #expect(push["body"] as? String == "Mitteilungen von PrintBridge kommen an 🎉" && push["kind"] as? String == "test")
            #expect(push["token"] as? String == "ababab…abab" && !answer.body.contains(AgentHarness.phone))
            await h.handled.wait(for: .answered, count: 1)
            let sent = try #require(h.sender.pushes.first)
            #expect(sent.event == .test && sent.kind == .alert && sent.token == AgentHarness.phone && sent.priority == 10)
            #expect(sent.apnsID == push["apnsId"] as? String && sent.expiration == sent.createdAt + 3600)
            #expect(sent.payloadText.contains(#""thread-id":"printbridge-test""#) && !sent.payloadText.contains("printerState"))
            // Three at once, then one every 20 minutes.
            #expect(await ask(api, device).status == 202)
            #expect(await ask(api, device).status == 202)
            let fourth = await ask(api, device)
            #expect(fourth.status == 429 && fourth.extraHeaders.contains { $0 == ("Retry-After", "1200") }, "\(fourth)")
            seconds.withLock { $0 += 1200 }
            #expect(await ask(api, device).status == 202)
            await h.handled.wait(for: .answered, count: 4)
        }
        #expect(h.sender.pushes.count == 4, "the refused one never reached the agent")
        await h.agentStore.drain()
        let history = try h.store.notifications(device: device, limit: 10).notifications
        #expect(history.map(\.event) == [.test, .test, .test, .test] && history.allSatisfy { $0.outcome == .delivered })
        #expect(history.first?.title == "PrintBridge-Test" && history.first?.printer == "printbridge-test")
    }

    @Test func anAgentThatStoppedSaysSo() async throws {
        let h = try AgentHarness()
        let api = try api(h, limiter: ControlAPI.testPushLimiter())
        let device = try #require(try h.store.devices().first).id
        try await withAgent(h) { _, _ in }
        let answer = await ask(api, device)
        #expect(answer.status == 503 && json(answer)["error"] as? String == "The agent is shutting down; try again when it is back")
    }
}
