import ControlAPI
import Synchronization
import Testing

/// Guessing is slow, with time given by hand: ten free failures, then
/// doubling waits up to five minutes, a fresh start after an hour without
/// failures, and bounded memory whatever the number of addresses.
@Suite struct AuthThrottleTests {
    final class Clock: Sendable {
        let now = Mutex(1_000.0)
        func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
        var read: @Sendable () -> Double { { [self] in now.withLock { $0 } } }
    }

    @Test func tenFreeThenDoublingWaitsUpToFiveMinutes() {
        let clock = Clock()
        let throttle = AuthThrottle(clock: clock.read)
        for attempt in 1...10 {
            #expect(throttle.waiting("a") == nil)
            #expect(throttle.failed("a").blockedFor == 0, "attempt \(attempt) is free")
        }
        let eleventh = throttle.failed("a")
        #expect(eleventh.startsBurst && eleventh.blockedFor == 1)
        #expect(throttle.waiting("a") == 1)
        #expect(throttle.waiting("b") == nil, "another address is not held back")
        clock.advance(1)
        #expect(throttle.waiting("a") == nil)
        var waits: [Double] = []
        for _ in 0..<12 {
            let failure = throttle.failed("a")
            #expect(!failure.startsBurst, "one log line per burst")
            waits.append(failure.blockedFor)
            clock.advance(failure.blockedFor)
        }
        #expect(waits == [2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300, 300])
        // An hour without a failure: a fresh start.
        clock.advance(3_601)
        #expect(throttle.failed("a").blockedFor == 0)
        // A success forgets the count.
        for _ in 0..<9 { throttle.failed("a") }
        throttle.succeeded("a")
        #expect(throttle.failed("a").failures == 1)
    }

    @Test func memoryStaysBoundedTheStalestAddressGoesFirst() {
        let clock = Clock()
        let throttle = AuthThrottle(maximumSources: 100, clock: clock.read)
        for index in 0..<10_000 {
            clock.advance(0.001)
            throttle.failed("10.0.\(index / 256).\(index % 256)")
        }
        #expect(throttle.count == 100)
        for _ in 0..<11 { throttle.failed("192.0.2.1") }
        #expect(throttle.waiting("192.0.2.1") != nil)
        #expect(throttle.count == 100)
    }
}
