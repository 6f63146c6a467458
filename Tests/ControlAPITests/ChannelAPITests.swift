import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Testing

/// The app's side of broadcast channels (iOS 18): a printer's channel id,
/// and a phone following its activity by channel instead of a token.
extension ControlAPITests {
    func registeredPhone() async throws -> String {
        let reply = try await call("POST", "/api/devices/register",
                                   body: #"{"apnsToken":"\#(phone)","haUrl":"http://ha:8123","printerPrefix":"x1c"}"#)
        return try #require(reply.json["deviceId"] as? String, "\(reply.text)")
    }

    @Test func aPrinterWithoutAChannelSaysSoAndAnUnknownOneIs404() async throws {
        let none = try await call("GET", "/api/printers/x1c/channel")
        #expect(none.status == 200 && none.json["channelId"] is NSNull && none.json["environment"] as? String == "sandbox")
        #expect(try await call("GET", "/api/printers/nope/channel").status == 404)
        #expect(try await call("GET", "/api/printers/x1c/channel", token: nil).status == 401)
    }

    @Test func aPhoneFollowsAPrintersActivityByItsChannelAndNeverByBoth() async throws {
        try store.saveChannel("Y2hhbm5lbA==", printerPrefix: "x1c", environment: "sandbox")
        try store.saveChannel("cHJvZA==", printerPrefix: "x1c", environment: "production")
        let answer = try await call("GET", "/api/printers/x1c/channel")
        #expect(answer.json["channelId"] as? String == "Y2hhbm5lbA==", "the environment the agent sends to")
        let device = try await registeredPhone()
        let token = String(repeating: "cd", count: 40)
        _ = try await call("POST", "/api/devices/activity-token",
                           body: #"{"activityToken":"\#(token)","printerPrefix":"x1c","deviceId":"\#(device)"}"#)
        let stale = try await call("POST", "/api/devices/\(device)/activity-channel",
                                   body: #"{"printerPrefix":"x1c","channelId":"cHJvZA=="}"#)
        #expect(stale.status == 409, "\(stale.text)")
        let follow = try await call("POST", "/api/devices/\(device)/activity-channel",
                                    body: #"{"printerPrefix":"x1c","channelId":"Y2hhbm5lbA=="}"#)
        #expect(follow.status == 200, "\(follow.text)")
        var phone = try #require(try store.device(id: device))
        #expect(phone.channelPrinters == ["x1c"] && phone.activityTokens.isEmpty, "the token is dropped")
        let shown = try #require(try await call("GET", "/api/devices/\(device)").json["device"] as? [String: Any])
        #expect(shown["activityChannels"] as? [String] == ["x1c"] && (shown["liveActivities"] as? [Any])?.isEmpty == true)
        // A token registered later replaces following by channel.
        _ = try await call("POST", "/api/devices/activity-token",
                           body: #"{"activityToken":"\#(token)","printerPrefix":"x1c","deviceId":"\#(device)"}"#)
        phone = try #require(try store.device(id: device))
        #expect(phone.channelPrinters.isEmpty && phone.activityTokens == ["x1c": token])
        let missing = try await call("POST", "/api/devices/nobody/activity-channel",
                                     body: #"{"printerPrefix":"x1c","channelId":"Y2hhbm5lbA=="}"#)
        #expect(missing.status == 404)
        let bad = try await call("POST", "/api/devices/\(device)/activity-channel", body: #"{"printerPrefix":"x1c"}"#)
        #expect(bad.status == 400)
    }

    @Test func aRetiredChannelIsQueuedForDeletionAndItsFollowersFollowNothing() async throws {
        try store.saveChannel("Y2hhbm5lbA==", printerPrefix: "x1c", environment: "sandbox")
        let device = try await registeredPhone()
        #expect(try store.followByChannel(deviceID: device, printerPrefix: "x1c"))
        try store.retireChannel(printerPrefix: "x1c", environment: "sandbox")
        let channels = try store.channels(environment: "sandbox")
        #expect(channels.byPrinter.isEmpty && channels.deletions == ["Y2hhbm5lbA=="])
        #expect(try store.device(id: device)?.channelPrinters.isEmpty == true)
        try store.forgetChannel("Y2hhbm5lbA==")
        #expect(try store.channels(environment: "sandbox").deletions.isEmpty)
    }
}
