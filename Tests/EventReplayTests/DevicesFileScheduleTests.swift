import EventReplay
import PrintBridgeCore
import Testing

/// `replay --devices`: a phone's schedule in its `settings`, by the settings PATCH's keys.
@Suite struct DevicesFileScheduleTests {
    let token = String(repeating: "ab", count: 32)

    @Test func theScheduleIsReadAsThePatchTakesIt() throws {
        let text = #"[{"apnsToken":"\#(token)","settings":{"onStart":false,"quietHours":{"start":"23:00","end":"06:30","timeZone":"Europe/Berlin","breakthrough":false},"milestones":{"every":25},"minutesLeft":15,"retellAfterMinutes":0}}]"#
        let devices = try DevicesFile.parse(Array(text.utf8), source: "devices.json")
        #expect(devices[0].preferences == NotificationPreferences(onStart: false, schedule: AlertSchedule(
            quietHours: QuietHours(start: 1380, end: 390, timeZone: "Europe/Berlin", breakthrough: false),
            milestones: [25, 50, 75], minutesLeft: 15, retellAfterMinutes: 0)))
    }

    @Test func aBadScheduleIsNamed() {
        let text = #"[{"apnsToken":"\#(token)","settings":{"quietHours":{"start":"23:00","end":"6:30","timeZone":"UTC"}}}]"#
        #expect(throws: DevicesFile.Error.self) { try DevicesFile.parse(Array(text.utf8), source: "devices.json") }
        do {
            _ = try DevicesFile.parse(Array(text.utf8), source: "devices.json")
        } catch {
            #expect(error.description == "devices.json: device 1: settings.quietHours end must be a time of day as HH:MM")
        }
    }
}
