@testable import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Testing

/// The schedule (issue 53) through the settings PATCH: quiet hours, the
/// phone's milestones, "minutes left", the re-telling delay; the device
/// shows it in `schedule`, beside the seed's switches; bad values are named.
@Suite struct AlertScheduleAPITests: DirectCalls {
    static let adminToken = "alert-schedule-admin-token-0123456789"
    let store: DeviceStore
    let api: ControlAPI

    init() throws {
        store = try Self.temporaryStore("alert-schedule")
        api = ControlAPI(
            store: store, apiToken: Self.adminToken, apns: .init(configured: true, bundleID: "b", production: false),
            trustedNetworks: try TrustedNetworks(parsing: "192.168.1.0/24"))
    }

    func schedule(_ phone: (credential: String, device: String)) throws -> [String: Any] {
        let reply = send("GET", "/api/devices/\(phone.device)", bearer: phone.credential)
        let device = try #require(json(reply)["device"] as? [String: Any])
        #expect(device["settings"] is [String: Bool], "the seed's switches stay booleans only")
        return try #require(device["schedule"] as? [String: Any])
    }

    @Test func aNewPhoneHasNoQuietHoursTheAgentsMilestonesAndIsToldAgainAfter15Minutes() throws {
        let sam = try pairedPhone("aa")
        let schedule = try schedule(sam)
        #expect(schedule["quietHours"] is NSNull && schedule["milestones"] is NSNull && schedule["minutesLeft"] is NSNull)
        #expect(schedule["retellAfterMinutes"] as? Int == 15)
    }

    @Test func thePhoneSetsItsScheduleAndOnlyTheGivenPartsChange() throws {
        let sam = try pairedPhone("aa")
        let body = #"{"onStart":false,"quietHours":{"start":"22:30","end":"07:00","timeZone":"Europe/Berlin"},"milestones":[75,25,50,25],"minutesLeft":10}"#
        let reply = send("PATCH", "/api/devices/\(sam.device)/settings", body: body, bearer: sam.credential)
        #expect(reply.status == 200, "\(reply.body)")
        var schedule = try schedule(sam)
        let quiet = try #require(schedule["quietHours"] as? [String: Any])
        #expect(quiet["start"] as? String == "22:30" && quiet["end"] as? String == "07:00")
        #expect(quiet["timeZone"] as? String == "Europe/Berlin" && quiet["breakthrough"] as? Bool == true)
        #expect(schedule["milestones"] as? [Int] == [25, 50, 75] && schedule["minutesLeft"] as? Int == 10)
        #expect(try store.device(id: sam.device)?.preferences.onStart == false)

        #expect(send("PATCH", "/api/devices/\(sam.device)/settings", body: #"{"milestones":{"every":20},"retellAfterMinutes":0}"#,
                     bearer: sam.credential).status == 200)
        schedule = try self.schedule(sam)
        #expect(schedule["milestones"] as? [Int] == [20, 40, 60, 80] && schedule["retellAfterMinutes"] as? Int == 0)
        #expect(schedule["quietHours"] is [String: Any] && schedule["minutesLeft"] as? Int == 10, "untouched")

        #expect(send("PATCH", "/api/devices/\(sam.device)/settings", body: #"{"quietHours":null,"milestones":null,"minutesLeft":0}"#,
                     bearer: sam.credential).status == 200)
        schedule = try self.schedule(sam)
        #expect(schedule["quietHours"] is NSNull && schedule["milestones"] is NSNull && schedule["minutesLeft"] is NSNull)
    }

    @Test func badValuesAreNamedAndNothingChanges() throws {
        let sam = try pairedPhone("aa")
        let body = #"{"onStart":false,"quietHours":{"start":"25:00","end":"07:00","timeZone":"Mars/Olympus","x":1},"milestones":[0,50],"minutesLeft":-3,"retellAfterMinutes":"soon"}"#
        let reply = send("PATCH", "/api/devices/\(sam.device)/settings", body: body, bearer: sam.credential)
        #expect(reply.status == 400)
        let details = json(reply)["details"] as? [String: [String]]
        #expect(details?["quietHours"] == [
            "x is not a part of quiet hours", "start must be a time of day as HH:MM",
            "timeZone must be a time zone this machine knows (an IANA name such as Europe/Berlin)",
        ])
        #expect(details?["milestones"] == ["must be a list of whole percentages from 1 to 99"])
        #expect(details?["minutesLeft"]?.count == 1 && details?["retellAfterMinutes"]?.count == 1)
        #expect(try store.device(id: sam.device)?.preferences.onStart == true, "nothing applied")
        let same = send("PATCH", "/api/devices/\(sam.device)/settings",
                        body: #"{"quietHours":{"start":"07:00","end":"07:00","timeZone":"UTC"}}"#, bearer: sam.credential)
        #expect((json(same)["details"] as? [String: [String]])?["quietHours"] == ["start and end must differ"])
    }

    @Test func anotherPhonesScheduleIsRefused() throws {
        let sam = try pairedPhone("aa"), kim = try pairedPhone("bb")
        #expect(send("PATCH", "/api/devices/\(kim.device)/settings", body: #"{"minutesLeft":5}"#, bearer: sam.credential).status == 403)
        #expect(try store.device(id: kim.device)?.preferences.schedule.minutesLeft == nil)
    }
}
