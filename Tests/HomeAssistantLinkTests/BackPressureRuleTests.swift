import HomeAssistantLink
import Testing

/// The back-pressure rule on its own: reading stops at 1,024 events not
/// taken, and the link is woken once (not per event) to read again at 256.
@Suite struct BackPressureRuleTests {
    @Test func readingStopsAtThePauseMarkAndResumesAtTheResumeMark() {
        var rule = BackPressure()
        var stops: [Int] = []
        for queued in 1...(BackPressure.pauseAt + 1) where rule.yielded() { stops.append(queued) }
        #expect(stops == [BackPressure.pauseAt], "reading stops once, at the pause mark")
        #expect(rule.paused && rule.queued == BackPressure.pauseAt + 1)
        var wakes: [Int] = []
        var resumed: [Int] = []
        while rule.queued > 0 {
            if rule.consumed() { wakes.append(rule.queued) }
            if rule.queued == BackPressure.resumeAt - 10, rule.resumeIfAsked() { resumed.append(rule.queued) }
        }
        #expect(wakes == [BackPressure.resumeAt], "one wake-up, when the consumer is down to the resume mark")
        #expect(resumed == [BackPressure.resumeAt - 10], "woken, the link reads again")
        #expect(!rule.paused)
        let again = rule.resumeIfAsked()
        #expect(!again, "nothing more to resume")
    }

    @Test func noWakeUpWhileReadingGoesOn() {
        var rule = BackPressure()
        var asked = 0
        for _ in 0..<100 {
            if rule.yielded() { asked += 1 }
            if rule.consumed() { asked += 1 }
        }
        if rule.resumeIfAsked() { asked += 1 }
        #expect(asked == 0)
    }
}
