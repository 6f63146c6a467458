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
        // An hour without a failure: a fresh start, and only that.
        clock.advance(3_601)
        #expect(throttle.failed("a").blockedFor == 0)
    }

    /// One IPv6 host holds a whole /64: its addresses are one source, and
    /// 1,024 of them cannot push a held address out of the table.
    @Test func anIPv6ClientCountsByItsSlash64() throws {
        let one = try #require(TrustedNetworks.address("2001:db8:1:2::1")), other = try #require(TrustedNetworks.address("2001:db8:1:2:ffff::9"))
        #expect(AuthThrottle.source(one) == "2001:db8:1:2::/64" && AuthThrottle.source(other) == AuthThrottle.source(one))
        #expect(AuthThrottle.source(TrustedNetworks.address("2001:db8:1:3::1")) == "2001:db8:1:3::/64")
        #expect(AuthThrottle.source(TrustedNetworks.address("192.0.2.7")) == "192.0.2.7")
        #expect(AuthThrottle.source(TrustedNetworks.address("::ffff:192.0.2.7")) == "192.0.2.7")
        #expect(AuthThrottle.source(TrustedNetworks.address("::1")) == "::1")
        #expect(AuthThrottle.source(nil) == "unknown")
    }

    /// A guesser held back stays held back while a flood of new addresses
    /// (each failing once) fills the table: the free ones make room.
    @Test func aFloodOfNewAddressesDoesNotFreeAHeldOne() {
        let clock = Clock()
        let throttle = AuthThrottle(maximumSources: 100, clock: clock.read)
        for _ in 0..<16 { throttle.failed("guesser") }
        let wait = throttle.waiting("guesser")
        #expect(wait != nil)
        for index in 0..<10_000 {
            clock.advance(0.001)
            throttle.failed("10.0.\(index / 256).\(index % 256)")
        }
        #expect(throttle.count == 100)
        #expect(throttle.waiting("guesser") != nil, "still held after 10,000 new addresses")
        #expect(throttle.failed("guesser").failures == 17, "its count kept")
        // Every one held: the one whose wait ends first makes room.
        let full = AuthThrottle(maximumSources: 3, clock: clock.read)
        for (name, failures) in [("a", 12), ("b", 14), ("c", 11)] {
            for _ in 0..<failures { full.failed(name) }
        }
        full.failed("d")
        #expect(full.count == 3 && full.waiting("c") == nil && full.waiting("a") != nil && full.waiting("b") != nil)
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
