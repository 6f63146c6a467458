import PrintBridgeCore
import Testing

/// The clock the HA session's intervals run on: it only moves forward and
/// is not the date, so setting the wall clock (an NTP step) cannot move it.
@Suite struct MonotonicClockTests {
    @Test func itMovesForwardFromAnOriginOfItsOwn() {
        let clock = MonotonicClock()
        let first = clock.now()
        var later = first
        for _ in 0..<1000 { later = clock.now() }
        #expect(later.seconds >= first.seconds)
        // Counted from the process's first reading, not from 1970.
        #expect(first.seconds < SystemClock().now().seconds / 1000, "\(first.seconds)")
        #expect(MonotonicClock.seconds() >= later.seconds)
    }
}
