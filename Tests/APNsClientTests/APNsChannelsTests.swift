import APNsClient
import Foundation
import PrintBridgeCore
import Testing

/// The channel management API and broadcast pushes through the real client
/// (HTTP/2, TLS, the provider token) against the mock APNs, which answers
/// as Apple documents ("Sending channel management requests to APNs",
/// "Sending broadcast push notification requests to APNs").
@Suite(.serialized) struct APNsChannelsTests {
    let server: MockAPNsServer
    let sender: APNsSender
    let channels: APNsChannels

    init() throws {
        server = try MockAPNsServer(recording: true)
        sender = try APNsSender(
            configuration: server.configuration, key: try APNsSigningKey(path: server.keyPath), sleep: { _ in })
        channels = try APNsChannels(sender: sender)
    }

    @Test func theManagementHostsAreApplesOwnPerEnvironment() {
        var configuration = APNsConfiguration(teamID: "T", keyID: "K", keyPath: "", bundleID: "b.c")
        #expect(configuration.channelEndpoint == "https://api-manage-broadcast.sandbox.push.apple.com:2195")
        configuration.environment = .production
        #expect(configuration.channelEndpoint == "https://api-manage-broadcast.push.apple.com:2196")
        #expect(configuration.endpoint == "https://api.push.apple.com")
    }

    @Test func aChannelIsMadeListedAndDeleted() async throws {
        let id = try await channels.createChannel().get()
        #expect(server.channels() == [id])
        #expect(try await channels.listChannels().get() == [id])
        try await channels.deleteChannel(id).get()
        #expect(server.channels().isEmpty)
        // Deleting one APNs no longer knows is done already.
        try await channels.deleteChannel(id).get()
        let requests = try server.channelRequests()
        #expect(requests.map { $0["method"] as? String } == ["POST", "GET", "DELETE", "DELETE"])
        #expect(requests.map { $0["status"] as? Int } == [201, 200, 204, 400])
        #expect(requests.last?["reason"] as? String == "ChannelNotRegistered")
        // Every request names itself with a UUID of its own.
        let ids = requests.compactMap { $0["request_id"] as? String }
        #expect(Set(ids).count == 4)
    }

    @Test func applesRefusalsComeBackWithTheirReasonAndWhetherToTryAgain() async throws {
        server.failChannelManagement(status: 400, reason: "FeatureNotEnabled", times: nil)
        let refused = await channels.createChannel()
        #expect(refused == .failure(.rejected(status: 400, reason: .featureNotEnabled)))
        #expect((try? refused.get()) == nil)
        if case .failure(let failure) = refused { #expect(failure.isLasting) }
        server.failChannelManagement(status: 500, reason: "InternalServerError", times: 1)
        let busy = await channels.createChannel()
        guard case .failure(let failure) = busy else { Issue.record("500 taken for a channel"); return }
        #expect(!failure.isLasting)
        #expect(try await channels.createChannel().get().isEmpty == false)
    }

    @Test func theLimitOfChannelsIsApplesCannotCreateChannelConfig() async throws {
        let limited = try MockAPNsServer(channelLimit: 1)
        let sender = try APNsSender(
            configuration: limited.configuration, key: try APNsSigningKey(path: limited.keyPath), sleep: { _ in })
        let channels = try APNsChannels(sender: sender)
        _ = try await channels.createChannel().get()
        #expect(await channels.createChannel() == .failure(.rejected(status: 400, reason: .cannotCreateChannelConfig)))
    }

    func broadcast(to channel: String, event: LiveActivityPayload.Event = .update) -> Push {
        let now = SystemClock().now()
        let payload = Array(#"{"aps":{"timestamp":\#(now.wholeSeconds),"event":"\#(event.rawValue)","content-state":{},"relevance-score":75}}"#.utf8)
        return Push(
            kind: .liveActivity, event: .update, printerPrefix: "x1c", deviceID: "channel", token: channel,
            tokenKind: .channel, topic: MockAPNsServer.bundleID + ".push-type.liveactivity", priority: 5,
            collapseID: nil, expiration: now + 60, payload: payload, createdAt: now)
    }

    @Test func aBroadcastGoesToTheChannelOnThePushHost() async throws {
        let id = try await channels.createChannel().get()
        var push = broadcast(to: id)
        push.apnsID = Push.randomID()
        let outcome = await sender.send(push)
        #expect(outcome == .delivered(apnsID: push.apnsID!))
        let recorded = server.requests()
        #expect(recorded.count == 1)
        #expect(recorded.first?["channel_id"] as? String == id)
        #expect(recorded.first?["request_id"] as? String == push.apnsID)
        #expect(recorded.first?["relevance_score"] as? Int == 75)
        #expect(try server.stat("broadcasts") == 1)
    }

    @Test func aBroadcastToAGoneChannelSaysTheChannelIsGone() async throws {
        let id = try await channels.createChannel().get()
        try await channels.deleteChannel(id).get()
        let outcome = await sender.send(broadcast(to: id))
        #expect(outcome == .rejected(status: 400, reason: .channelNotRegistered, tokenAction: .remove))
        let bad = await sender.send(broadcast(to: "not base64!"))
        #expect(bad == .rejected(status: 400, reason: .badChannelID, tokenAction: .remove))
    }

    @Test func theBroadcastRequestIsApples() {
        let request = APNsSender.request(for: broadcast(to: "abc="), apnsID: "id-1", authorization: "bearer t")
        #expect(request.method == "POST")
        #expect(request.path == "/4/broadcasts/apps/" + MockAPNsServer.bundleID)
        let names = request.headers.map(\.name)
        #expect(names.contains("apns-channel-id") && names.contains("apns-request-id"))
        #expect(!names.contains("apns-topic") && !names.contains("apns-id") && !names.contains("apns-collapse-id"))
        #expect(request.headers.first { $0.name == "apns-push-type" }?.value == "liveactivity")
    }
}
