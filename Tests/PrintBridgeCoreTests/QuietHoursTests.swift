import PrintBridgeCore
import Testing

/// Quiet hours in the phone's zone: over midnight, and a night the clocks change.
@Suite struct QuietHoursTests {
    /// 2026-11-29T21:00:00Z: 22:00 in Berlin (winter, +01:00).
    static let berlinTen = EpochTime(seconds: 1_795_986_000)

    @Test func quietHoursOverMidnightHoldTheNightInTheirZone() {
        let quiet = QuietHours(start: 22 * 60, end: 7 * 60, timeZone: "Europe/Berlin")
        let ten = Self.berlinTen
        #expect(quiet.clockText(ten) == "22:00")
        #expect(quiet.contains(ten) && quiet.contains(ten + 8.9 * 3600))
        #expect(!quiet.contains(ten + -60) && !quiet.contains(ten + 9 * 3600), "21:59 and 07:00 are not quiet")
        #expect(quiet.endAfter(ten) == ten + 9 * 3600)
        #expect(quiet.endAfter(ten + 5 * 3600) == ten + 9 * 3600)
        let utc = QuietHours(start: 22 * 60, end: 7 * 60, timeZone: "UTC")
        #expect(!utc.contains(ten), "21:00 UTC")
    }

    @Test func quietHoursWithinADay() {
        let quiet = QuietHours(start: 13 * 60, end: 15 * 60 + 30, timeZone: "UTC")
        let noon = EpochTime(seconds: 1_795_953_600)  // 2026-11-29T12:00Z
        #expect(!quiet.contains(noon) && quiet.contains(noon + 3600) && !quiet.contains(noon + 3.5 * 3600))
        #expect(quiet.endAfter(noon + 3600) == noon + 3.5 * 3600)
    }

    @Test func theNightTheClocksGoForwardEndsAtSevenLocal() {
        // 2026-03-29: Berlin goes from +01:00 to +02:00 at 01:00Z. 22:00 the
        // evening before is 21:00Z; 07:00 that morning is 05:00Z, 8 hours on.
        let quiet = QuietHours(start: 22 * 60, end: 7 * 60, timeZone: "Europe/Berlin")
        let evening = EpochTime(seconds: 1_774_731_600)  // 2026-03-28T21:00Z
        #expect(quiet.clockText(evening) == "22:00")
        let end = quiet.endAfter(evening)
        #expect(end == evening + 8 * 3600)
        #expect(quiet.clockText(end) == "07:00")
    }

    @Test func milestonesEveryAndLists() {
        #expect(AlertSchedule.every(25) == [25, 50, 75])
        #expect(AlertSchedule.every(0) == nil && AlertSchedule.every(100) == nil)
        #expect(AlertSchedule.milestoneList([50, 10, 50]) == [10, 50])
        #expect(AlertSchedule.milestoneList([100]) == nil)
    }
}
