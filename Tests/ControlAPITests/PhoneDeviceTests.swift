@testable import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Testing

/// The app's own device, as the seeds' register-then-load-preferences flow
/// walks it: the registration's answer and `GET /api/devices/{deviceId}`
/// give the settings screen what it shows. Another phone's device is a
/// 403, an unknown one a 404.
@Suite struct PhoneDeviceTests: DirectCalls {
    static let adminToken = "phone-device-admin-token-0123456789"
    let store: DeviceStore
    let api: ControlAPI

    init() throws {
        store = try Self.temporaryStore("phone-device")
        api = ControlAPI(
            store: store, apiToken: Self.adminToken, apns: .init(configured: true, bundleID: "b", production: false),
            trustedNetworks: try TrustedNetworks(parsing: "192.168.1.0/24"))
    }

    var registerBody: String {
        #"{"apnsToken":"\#(String(repeating: "aa", count: 32))","haUrl":"http://ha:8123","printerPrefix":"x1c_00m09a350100123","printerName":"X1C"}"#
    }

    @Test func theRegistrationsAnswerIsTheSeedsAndTheSettingsScreens() throws {
        let answer = json(send("POST", "/api/devices/register", body: registerBody, bearer: Self.adminToken))
        // The seed app's DeviceRegistrationResponse decodes these three.
        #expect(answer["success"] as? Bool == true && answer["message"] as? String == "Device registered")
        let id = try #require(answer["deviceId"] as? String)
        let device = try #require(answer["device"] as? [String: Any])
        #expect(device["id"] as? String == id && device["printerPrefixes"] as? [String] == ["x1c_00m09a350100123"])
        #expect(device["printerName"] as? String == "X1C" && device["language"] is NSNull && device["disabled"] as? Bool == false)
        let settings = try #require(device["settings"] as? [String: Bool])
        #expect(Set(settings.keys) == Set(NotificationPreferences.switches.map(\.name)), "every switch the PATCH takes")
        #expect(settings.filter { $0.key != "onFirstLayer" }.values.allSatisfy { $0 }, "all on for a new phone")
        #expect(settings["onFirstLayer"] == false, "but the first layer's, off by default (issue 53)")
    }

    @Test func aPhoneReadsBackItsOwnDevice() throws {
        let sam = try pairedPhone("aa")
        #expect(send("PATCH", "/api/devices/\(sam.device)/settings", body: #"{"onMilestone":false,"snapshots":false}"#,
                     bearer: sam.credential).status == 200)
        #expect(send("POST", "/api/devices/activity-token", body: #"{"activityToken":"\#(String(repeating: "cd", count: 40))","printerPrefix":"x1c_00m09a350100123","deviceId":"\#(sam.device)"}"#,
                     bearer: sam.credential).status == 200)
        #expect(send("POST", "/api/devices/\(sam.device)/push-to-start-token", body: #"{"pushToStartToken":"\#(String(repeating: "ef", count: 40))"}"#,
                     bearer: sam.credential).status == 200)
        #expect(send("POST", "/api/devices/register", body: #"{"apnsToken":"\#(String(repeating: "aa", count: 32))","haUrl":"http://ha:8123","language":"fr-CA"}"#,
                     bearer: sam.credential).status == 200)
        let reply = send("GET", "/api/devices/\(sam.device)", bearer: sam.credential)
        #expect(reply.status == 200, "\(reply.body)")
        let device = try #require(json(reply)["device"] as? [String: Any])
        #expect(device["id"] as? String == sam.device && device["language"] as? String == "fr-CA")
        let settings = try #require(device["settings"] as? [String: Bool])
        #expect(settings["onMilestone"] == false && settings["snapshots"] == false && settings["onComplete"] == true)
        #expect(device["tokens"] as? [String: String] == ["apns": "aaaaaa…aaaa", "pushToStart": "efefef…efef"])
        #expect(device["liveActivities"] as? [[String: String]] == [["printerPrefix": "x1c_00m09a350100123", "token": "cdcdcd…cdcd"]])
        for whole in [String(repeating: "aa", count: 32), String(repeating: "cd", count: 40), String(repeating: "ef", count: 40)] {
            #expect(!reply.body.contains(whole), "never a whole token")
        }
    }

    @Test func anotherPhonesDeviceIsRefusedAndAnUnknownOneNotFound() throws {
        let sam = try pairedPhone("aa"), kim = try pairedPhone("bb")
        #expect(send("GET", "/api/devices/\(kim.device)", bearer: sam.credential).status == 403)
        #expect(send("GET", "/api/devices/\(kim.device)", bearer: Self.adminToken).status == 200, "the admin's")
        #expect(send("GET", "/api/devices/no-such-phone", bearer: Self.adminToken).status == 404)
        // Nor the trusted network's alone (the unmodified seed app does not ask).
        #expect(send("GET", "/api/devices/\(sam.device)", from: "192.168.1.30").status == 401)
    }
}
