@testable import APNsClient
import PrintBridgeCore
import Testing

/// A silent connection's rules (docs/BEHAVIOUR.md, "A silent connection"),
/// on a manual clock: no sockets, no sleeps.
@Suite struct HTTP2LivenessTests {
    let clock = ManualClock(EpochTime(seconds: 1000))
    let limits = HTTP2Liveness.Limits(connectTimeout: 10, requestTimeout: 30, stallTimeout: 5)

    func open() -> HTTP2Liveness {
        var liveness = HTTP2Liveness(limits: limits, startingAt: clock.now())
        liveness.opened()
        return liveness
    }

    func request(_ id: Int32, startedAgo seconds: Double = 0, sent: Bool = true) -> HTTP2Liveness.Request {
        HTTP2Liveness.Request(id: id, started: clock.now() + -seconds, sent: sent)
    }

    @Test func aConnectionNotUpWithinTheConnectTimeoutEnds() {
        var liveness = HTTP2Liveness(limits: limits, startingAt: clock.now())
        let start = clock.now()
        #expect(liveness.check(at: clock.now(), requests: []).next == start + 10, "sleeps until the deadline")
        clock.advance(by: 9.75)
        #expect(liveness.check(at: clock.now(), requests: []).end == nil)
        clock.advance(by: 0.25)
        #expect(liveness.check(at: clock.now(), requests: []).end == .connectTimedOut)
    }

    @Test func anOpenConnectionHasNoConnectDeadlineAndAnIdleOneNoTimerAtAll() {
        var liveness = open()
        clock.advance(by: 3600)
        #expect(liveness.check(at: clock.now(), requests: []) == HTTP2Liveness.Decision(), "idle: nothing, and no wake-up")
    }

    @Test func aQuietConnectionIsAskedWithOnePingAfterHalfTheStallTimeout() {
        var liveness = open()
        let sent = clock.now()
        clock.advance(by: 2.25)
        var decision = liveness.check(at: clock.now(), requests: [HTTP2Liveness.Request(id: 1, started: sent, sent: true)])
        #expect(!decision.ping && decision.end == nil)
        #expect(decision.next == clock.now() + HTTP2Liveness.scanInterval, "checks again at the scan interval")
        clock.advance(by: 0.25)
        decision = liveness.check(at: clock.now(), requests: [HTTP2Liveness.Request(id: 1, started: sent, sent: true)])
        #expect(decision.ping, "2.5 s of silence with a request waiting")
        clock.advance(by: 1)
        decision = liveness.check(at: clock.now(), requests: [HTTP2Liveness.Request(id: 1, started: sent, sent: true)])
        #expect(!decision.ping, "one PING until it is answered")
        // The answer comes: the connection is alive; later silence asks again.
        liveness.received(at: clock.now())
        liveness.pingAnswered()
        clock.advance(by: 2.5)
        decision = liveness.check(at: clock.now(), requests: [HTTP2Liveness.Request(id: 1, started: sent, sent: true)])
        #expect(decision.ping && decision.end == nil)
    }

    @Test func requestsWaitingThroughTheStallTimeoutWithNothingBackEndTheConnection() {
        var liveness = open()
        let requests = [request(1), request(3), request(5, sent: false)]
        clock.advance(by: 4.75)
        #expect(liveness.check(at: clock.now(), requests: requests).end == nil)
        clock.advance(by: 0.25)
        let decision = liveness.check(at: clock.now(), requests: requests)
        #expect(decision.end == .stalled(requests: 2, quiet: 5), "the two sent; the unsent one goes again elsewhere")
        #expect(decision.next == nil)
    }

    @Test func silenceCountsOnlyWhileASentRequestWaits() {
        var liveness = open()
        // Silent for a minute, idle: nothing to stall.
        clock.advance(by: 60)
        var fresh = [request(1)]
        #expect(liveness.check(at: clock.now(), requests: fresh) == HTTP2Liveness.Decision(next: clock.now() + 0.1))
        // The request just sent has not waited: no PING before it waited 2.5 s, no stall before 5 s.
        clock.advance(by: 2.25)
        #expect(!liveness.check(at: clock.now(), requests: fresh).ping)
        clock.advance(by: 0.25)
        #expect(liveness.check(at: clock.now(), requests: fresh).ping)
        clock.advance(by: 2.5)
        #expect(liveness.check(at: clock.now(), requests: fresh).end == .stalled(requests: 1, quiet: 65))
        // Requests whose HEADERS have not gone out do not wait on the server.
        var other = open()
        clock.advance(by: 120)
        fresh = [request(1, startedAgo: 100, sent: false)]
        #expect(other.check(at: clock.now(), requests: fresh) == HTTP2Liveness.Decision(next: clock.now() + 0.1))
    }

    @Test func aSlowButLiveServerIsNotStalledButEachRequestTimesOut() {
        var liveness = open()
        var requests = [request(1)]
        // Something arrives every 2 s (answers to other requests, PING answers).
        for step in 1...14 {
            clock.advance(by: 2)
            liveness.received(at: clock.now())
            if step == 10 { requests.append(request(3)) }
            let decision = liveness.check(at: clock.now(), requests: requests)
            #expect(decision.end == nil && decision.timedOut.isEmpty && !decision.ping)
        }
        clock.advance(by: 2)
        liveness.received(at: clock.now())
        #expect(liveness.check(at: clock.now(), requests: requests).timedOut == [1], "30 s for request 1, 10 s for 3")
        requests.removeFirst()
        clock.advance(by: 20)
        liveness.received(at: clock.now())
        #expect(liveness.check(at: clock.now(), requests: requests).timedOut == [3])
    }

    @Test func theRequestsAreLookedOverAtMostTenTimesASecond() {
        var liveness = open()
        let requests = [request(1)]
        clock.advance(by: 2.4375)
        let looked = clock.now()
        #expect(!liveness.check(at: clock.now(), requests: requests).ping)
        clock.advance(by: 0.0625)
        let skipped = liveness.check(at: clock.now(), requests: requests)
        #expect(!skipped.ping, "2.5 s, but not looked at: the last look was 62.5 ms ago")
        #expect(skipped.next == looked + HTTP2Liveness.scanInterval)
        clock.advance(by: 0.0625)
        #expect(liveness.check(at: clock.now(), requests: requests).ping)
    }
}
