import ControlAPI
import Synchronization
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The server's `whenIdle` (where `run` trims the heap after a flood of
/// connections, issue 48): called once its last connection has gone after a
/// busy spell, once per spell, never while a connection is open, never on a
/// server that was idle all along, and without a wake-up of its own.
@Suite struct HTTPServerIdleTests {
    typealias Socket = HTTPServerClosingTests

    final class Calls: Sendable {
        let count = Atomic(0)
        var now: Int { count.load(ordering: .relaxed) }
    }

    static func server(busySpell: Int, calls: Calls) throws -> HTTPServer {
        var limits = HTTPServer.Limits()
        limits.busySpell = busySpell
        limits.lingerSeconds = 0.2
        let server = try HTTPServer(
            host: "127.0.0.1", port: 0, limits: limits, whenIdle: { calls.count.add(1, ordering: .relaxed) }
        ) { _ in HTTPResponse(status: 200, body: #"{"ok":true}"#) }
        try server.start()
        return server
    }

    /// One request on a connection of its own, answered, then closed.
    static func request(_ port: Int) throws {
        let socket = try Socket.connect(port: port)
        defer { close(socket) }
        #expect(Socket.send(socket, Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8)))
        #expect(String(decoding: try Socket.readToEnd(socket), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
    }

    @Test func anIdleServerIsNeverCalled() throws {
        let calls = Calls()
        let server = try Self.server(busySpell: 1, calls: calls)
        usleep(500_000)
        #expect(server.wakeUps == 0)
        server.stop()  // its wake-up, with no connection
        #expect(calls.now == 0)
    }

    @Test func calledOnceWhenTheLastConnectionOfASpellHasGone() throws {
        let calls = Calls()
        let server = try Self.server(busySpell: 8, calls: calls)
        defer { server.stop() }
        // A spell of 8: one connection held open, seven requests beside it.
        let held = try Socket.connect(port: server.port)
        for _ in 0..<7 { try Self.request(server.port) }
        usleep(500_000)  // the seven are let go; the held one is waiting for its head
        #expect(calls.now == 0, "called with a connection open")
        close(held)
        #expect(waitUntil(upTo: 10) { calls.now == 1 }, "not called once the last connection had gone")
        // Not again, and no wake-up for it: the server sleeps with nothing open.
        let settled = server.wakeUps
        usleep(1_000_000)
        #expect(calls.now == 1)
        #expect(server.wakeUps == settled, "woke \(server.wakeUps - settled) times with no connection")

        // Fewer than a spell since: not called.
        for _ in 0..<7 { try Self.request(server.port) }
        usleep(500_000)
        #expect(calls.now == 1, "called after only 7 connections")
        // The eighth completes the next spell.
        try Self.request(server.port)
        #expect(waitUntil(upTo: 10) { calls.now == 2 })
    }
}
