import HomeAssistantLink
import PrintBridgeCore
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The link against the mock HA streaming 2,000 events a second, with a
/// consumer that stops taking them: the link stops reading instead of
/// queueing without bound, and reads again once the consumer catches up.
@Suite struct BackPressureTests {
    @Test func aConsumerThatFallsBehindStopsTheLinkReadingUntilItCatchesUp() async throws {
        let root = CommandRunner.repositoryRoot(from: #filePath)
        let ha = try MockProcess(
            script: root + "/Tests/DaemonTests/MockHA/mock_ha.py",
            // The load outlasts the test even on a slow machine (the mock stops with it).
            // Household events need an HA that sends them: one without subscribe_entities.
            arguments: [
                "--events", root + "/SampleEvents/bambu-full-print.jsonl", "--token", "t", "--bench-load", "300",
                "--unknown-command", "subscribe_entities",
            ])
        let link = HomeAssistantLink(
            endpoint: try HAEndpoint(url: "ws://127.0.0.1:\(ha.port)/api/websocket"), accessToken: "t", tapsFrames: true)
        try link.start()
        defer { link.stop() }
        // The loops below wait for events: should they stop coming, stopping
        // the link ends its stream, and the test fails instead of hanging.
        let watchdog = Task {
            try await Task.sleep(nanoseconds: 120_000_000_000)
            Issue.record("no progress within 2 minutes; the link was stopped")
            link.stop()
        }
        defer { watchdog.cancel() }
        // Nothing taken: every frame waits in `events` until the link stops reading.
        waitUntil(upTo: 30) { link.isReceivePaused }
        #expect(link.isReceivePaused, "the link kept reading for a consumer that took nothing")
        // Paused for a while: no more arrives, and what waits is bounded by
        // the mark and what libwebsockets had already read. (Counted here,
        // not by what the loop below takes: once reading resumes, the
        // socket's backlog can fill the queue past the mark again before
        // the loop sees it unpaused.)
        // Waited for, not slept on: the rest of the read that crossed the
        // mark may still be going to the queue on a busy machine, so the
        // count must hold still for 300 ms (within 30 s) before it is judged.
        var waiting = link.queuedEvents
        waitUntil(upTo: 30) {
            usleep(300_000)
            let now = link.queuedEvents
            defer { waiting = now }
            return now == waiting
        }
        #expect(link.isReceivePaused && link.queuedEvents == waiting, "paused, the link read nothing more")
        #expect(waiting >= HomeAssistantLink.pauseBacklog && waiting <= HomeAssistantLink.pauseBacklog + 256,
                "\(waiting) events waited")
        // Everything that waited is taken, and then more: those were read
        // after the consumer caught up and the link read again.
        var iterator = link.events.makeAsyncIterator()
        var frames = 0
        var taken = 0
        while taken < waiting + 100, let event = await iterator.next() {
            taken += 1
            if case .received = event { frames += 1 }
        }
        #expect(taken == waiting + 100, "caught up, the link reads again")
        #expect(frames > 0)
        // And frames flow again.
        var more = 0
        while more < 100, let event = await iterator.next() {
            if case .received = event { more += 1 }
        }
        #expect(more == 100)
    }
}
