@testable import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Testing

/// The app's "Send a test notification" (`POST /api/devices/{deviceId}/test-push`):
/// its own phone only, and what the agent queued said in the answer; a
/// refusal for what cannot be sent. (AgentTestPushTests runs it through a
/// real agent: the outbox, the sender, the history, the allowance.)
@Suite struct TestPushAPITests: DirectCalls {
    static let adminToken = "test-push-admin-token-0123456789"
    let store: DeviceStore
    let api: ControlAPI
    /// The test pushes the "agent" was asked for, by device.
    let asked = Recorded()

    init() throws {
        store = try Self.temporaryStore("test-push")
        let asked = self.asked
        api = ControlAPI(
            store: store, apiToken: Self.adminToken, apns: .init(configured: true, bundleID: "b", production: false),
            trustedNetworks: try TrustedNetworks(parsing: "192.168.1.0/24"),
            testPushes: { device, done in
                asked.append(device)
                let push = Push(
                    kind: .alert, event: .test, printerPrefix: TestPayload.thread, deviceID: device,
                    token: String(repeating: "aa", count: 32), tokenKind: .device, topic: "b", priority: 10,
                    collapseID: TestPayload.thread, expiration: EpochTime(seconds: 1_795_168_800),
                    payload: (try? TestPayload().encoded()) ?? [], createdAt: EpochTime(seconds: 1_795_165_200))
                let queued = { var queued = push; queued.apnsID = "0b9a1c52-5f0e-4b7e-9d3c-2a8f6e1d4c7b"; return queued }()
                Thread.detachNewThread { done(.queued(queued, language: "en")) }
            })
    }

    @Test func anotherPhonesIsRefusedAndAnUnknownOneNotFound() throws {
        let sam = try pairedPhone("aa"), kim = try pairedPhone("bb")
        #expect(send("POST", "/api/devices/\(kim.device)/test-push", bearer: sam.credential).status == 403)
        #expect(asked.all.isEmpty, "the agent was never asked")
        #expect(send("POST", "/api/devices/no-such-phone/test-push", bearer: Self.adminToken).status == 404)
        // Not the trusted network's alone: anyone there could buzz every phone.
        #expect(send("POST", "/api/devices/\(sam.device)/test-push", from: "192.168.1.30").status == 401)
        #expect(asked.all.isEmpty)
    }

    @Test func aTestPushSaysWhatWasQueued() throws {
        let sam = try pairedPhone("aa")
        let reply = send("POST", "/api/devices/\(sam.device)/test-push", bearer: sam.credential)
        #expect(reply.status == 202, "\(reply.body)")
        let push = try #require(json(reply)["push"] as? [String: Any])
        #expect(push["apnsId"] as? String == "0b9a1c52-5f0e-4b7e-9d3c-2a8f6e1d4c7b" && push["kind"] as? String == "test")
        #expect(push["title"] as? String == "PrintBridge Test" && push["body"] as? String == "Push notifications from PrintBridge work 🎉")
        #expect(push["token"] as? String == "aaaaaa…aaaa" && push["language"] as? String == "en")
        #expect(push["expiresAt"] as? String == "2026-11-20T10:00:00.000Z")
        #expect(send("POST", "/api/devices/\(sam.device)/test-push", body: "{}", bearer: sam.credential).status == 202)
        let extra = send("POST", "/api/devices/\(sam.device)/test-push", body: #"{"printer":"x1c"}"#, bearer: sam.credential)
        #expect(extra.status == 400 && (json(extra)["details"] as? [String: Any])?["printer"] != nil)
        let text = send("POST", "/api/devices/\(sam.device)/test-push", body: "{}", json: false, bearer: sam.credential)
        #expect(text.status == 415)
        #expect(asked.all == [sam.device, sam.device])
    }

    @Test func aPhoneWhoseTokenAPNsRefusedOrNoAgentIsAClearRefusal() throws {
        let sam = try pairedPhone("aa")
        try store.applyTokenRejection(token: String(repeating: "aa", count: 32), action: .disable)
        let refused = send("POST", "/api/devices/\(sam.device)/test-push", bearer: sam.credential)
        #expect(refused.status == 409 && refused.body.contains("register it again"))
        #expect((json(send("GET", "/api/devices/\(sam.device)", bearer: sam.credential))["device"] as? [String: Any])?["disabled"] as? Bool == true)
        let alone = ControlAPI(store: store, apiToken: nil, apns: .init(configured: true, bundleID: "b", production: false))
        let kim = json(alone.handle(HTTPRequest(
            method: "POST", path: "/api/devices/register", headers: ["content-type": "application/json"],
            body: Array(#"{"apnsToken":"\#(String(repeating: "bb", count: 32))","haUrl":"http://ha:8123"}"#.utf8))))
        let id = try #require(kim["deviceId"] as? String)
        let none = alone.handle(HTTPRequest(method: "POST", path: "/api/devices/\(id)/test-push"))
        #expect(none.status == 503 && none.body.contains("printbridge run"))
    }
}
