@testable import ControlAPI
import PrintBridgeCore
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The API thread sleeps until input, its stop or a connection's deadline:
/// an idle server does not wake (it woke every second before).
@Suite struct HTTPServerWakeUpTests {
    typealias Socket = HTTPServerClosingTests

    @Test func anIdleServerDoesNotWakeAndStopsAtOnce() throws {
        let server = try HTTPServerClosingTests.server(lingerSeconds: 2)
        usleep(1_500_000)
        #expect(server.wakeUps == 0, "woke \(server.wakeUps) times with nothing to do")
        let started = MonotonicClock.seconds()
        server.stop()
        #expect(MonotonicClock.seconds() - started < 0.5, "stop waited for a timeout")
    }

    /// A request wakes the thread for its input and answer, and the linger's
    /// end; once the connection is gone the thread sleeps again.
    @Test func afterAConnectionTheServerSleepsAgain() throws {
        let server = try HTTPServerClosingTests.server(lingerSeconds: 0.2)
        defer { server.stop() }
        let socket = try Socket.connect(port: server.port)
        #expect(Socket.send(socket, Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8)))
        let answer = String(decoding: try Socket.readToEnd(socket), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        // Past the linger the server lets the connection go by itself
        // (however late a busy machine lets it); after that nothing wakes it.
        #expect(waitUntil(upTo: 10) { server.openConnections == 0 }, "the server still holds the connection")
        close(socket)
        let settled = server.wakeUps
        #expect(settled > 0 && settled < 20, "\(settled) wake-ups for one request")
        usleep(1_200_000)
        #expect(server.wakeUps == settled, "woke \(server.wakeUps - settled) times with no connection")
    }

    @Test func pollWaitsForTheNextDeadlineOrForever() {
        #expect(HTTPServer.pollTimeout(until: .infinity, now: 5) == -1)
        #expect(HTTPServer.pollTimeout(until: 5.0015, now: 5) == 2, "rounded up: never early")
        #expect(HTTPServer.pollTimeout(until: 4, now: 5) == 0, "a deadline passed: at once")
        #expect(HTTPServer.pollTimeout(until: 1e12, now: 0) == Int32.max)
    }
}
