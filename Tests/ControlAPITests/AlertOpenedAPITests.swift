@testable import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Synchronization
import Testing

/// POST /api/devices/{deviceId}/notifications/{notificationId}/opened (issue 53):
/// the phone's own alert, once; the running agent hears its apns-id.
@Suite struct AlertOpenedAPITests: DirectCalls {
    static let adminToken = "alert-opened-admin-token-0123456789"
    let store: DeviceStore
    let api: ControlAPI
    let heard = Heard()

    final class Heard: Sendable {
        let ids = Mutex<[String]>([])
        func withLock<T>(_ body: (inout [String]) -> T) -> T { ids.withLock { body(&$0) } }
    }

    init() throws {
        store = try Self.temporaryStore("alert-opened")
        let heard = heard
        api = ControlAPI(
            store: store, apiToken: Self.adminToken, apns: .init(configured: true, bundleID: "b", production: false),
            alertOpened: { id in heard.withLock { $0.append(id) } })
    }

    @Test func thePhoneMarksItsOwnAlertOpenedOnce() throws {
        let sam = try pairedPhone("aa"), kim = try pairedPhone("bb")
        try store.commit(notifications: [SentNotification(
            deviceID: sam.device, printer: "x1c", event: .failed, title: "Print Failed ⚠️", body: "benchy.3mf failed on X1C",
            createdAt: EpochTime(seconds: 1_795_165_300), apnsID: "f-1")])
        let id = try #require(try store.notifications(device: sam.device, limit: 5).notifications.first?.id)
        let path = "/api/devices/\(sam.device)/notifications/\(id)/opened"
        let reply = send("POST", path, bearer: sam.credential)
        #expect(reply.status == 200, "\(reply.body)")
        let openedAt = try #require(json(reply)["openedAt"] as? String)
        #expect(json(send("POST", path, bearer: sam.credential))["openedAt"] as? String == openedAt, "the first time stays")
        #expect(heard.withLock { $0 } == ["f-1", "f-1"])
        #expect(send("POST", path, bearer: kim.credential).status == 403, "another phone's")
        #expect(send("POST", "/api/devices/\(kim.device)/notifications/\(id)/opened", bearer: kim.credential).status == 404)
        #expect(send("POST", "/api/devices/\(sam.device)/notifications/x/opened", bearer: sam.credential).status == 400)
    }
}
