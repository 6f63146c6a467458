@testable import ControlAPI
import PrintBridgeCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The API against strangers: requests that two readers could read two
/// ways are refused, slow and idle clients are bounded, and nobody can hold
/// the server so that `/healthz` stops answering. Reproducers of what a
/// hostile-input probe found.
@Suite struct HTTPParserStrictnessTests {
    let limits = HTTPServer.Limits()

    func status(_ text: String) -> Int? {
        switch HTTPRequestParser.parse(Array(text.utf8), limits: limits) {
        case .incomplete: return nil
        case .invalid(let response): return response.status
        case .complete: return 200
        }
    }

    @Test func ambiguousLengthsAreRefused() {
        #expect(status("POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}") == 400)
        #expect(status("POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}") == 400)
        #expect(status("POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: +2\r\n\r\n{}") == 400)
        #expect(status("POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n") == 400)
        #expect(status("POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: 0x2\r\n\r\n{}") == 400)
        #expect(status("POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length : 2\r\n\r\n{}") == 400)
        #expect(status("POST /api/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n") == 400)
        #expect(status("POST /api/x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}") == 200)
        #expect(status("GET /healthz HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n") == 400)
        #expect(status("GET /healthz HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n") == 400)
    }

    @Test func aBareLineFeedIsRefusedAtOnce() {
        // Before: no CRLFCRLF ever came, and the client waited 10 s for nothing.
        #expect(status("GET /healthz HTTP/1.1\nHost: a\n\n") == 400)
        #expect(status("GET /healthz HTTP/1.1\r\nHost: a\n") == 400)
    }

    @Test func aHeadOverTheDocumentedLimitIsA431() {
        let big = "GET /healthz HTTP/1.1\r\nHost: a\r\nX-Pad: " + String(repeating: "p", count: 20_000) + "\r\n\r\n"
        #expect(status(big) == 431)
        var parser = HTTPRequestParser(limits: limits)
        var answer: Int?
        for byte in Array(big.utf8) where answer == nil {
            if case .invalid(let response) = [byte].withUnsafeBytes({ parser.append($0) }) { answer = response.status }
        }
        #expect(answer == 431)
        #expect(parser.work <= limits.maximumHeaderBytes + 4, "never reads past the limit")
        let fits = "GET /healthz HTTP/1.1\r\nHost: a\r\nX-Pad: " + String(repeating: "p", count: 15_000) + "\r\n\r\n"
        #expect(status(fits) == 200)
    }

    /// A head trickled a byte at a time is scanned once, not once per read
    /// (the old parser re-read the whole buffer on every read).
    @Test func aTrickledRequestIsReadInLinearTime() {
        let request = Array(("POST /api/devices/register HTTP/1.1\r\nHost: a\r\nX-Pad: " + String(repeating: "p", count: 12_000)
            + "\r\nContent-Length: 2\r\n\r\n{}").utf8)
        var parser = HTTPRequestParser(limits: limits)
        var complete = false
        for byte in request {
            if case .complete(let parsed) = [byte].withUnsafeBytes({ parser.append($0) }) {
                complete = true
                #expect(parsed.body == Array("{}".utf8))
            }
        }
        #expect(complete)
        #expect(parser.work <= request.count, "\(parser.work) bytes looked at for \(request.count)")
    }
}

@Suite struct HTTPServerCapacityTests {
    typealias Socket = HTTPServerClosingTests

    func server(_ adjust: (inout HTTPServer.Limits) -> Void = { _ in }) throws -> HTTPServer {
        var limits = HTTPServer.Limits()
        adjust(&limits)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { request in
            HTTPResponse(status: 200, body: #"{"path":"\#(request.path)"}"#)
        }
        try server.start()
        return server
    }

    func get(_ port: Int, _ path: String = "/healthz") throws -> (answer: String, seconds: Double) {
        let started = MonotonicClock.seconds()
        let socket = try Socket.connect(port: port)
        defer { close(socket) }
        _ = Socket.send(socket, Array("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let answer = String(decoding: try Socket.readToEnd(socket), as: UTF8.self)
        return (answer, MonotonicClock.seconds() - started)
    }

    /// 500 connections that send nothing, and 60 that trickle a byte every
    /// few milliseconds: /healthz still answers, and quickly.
    @Test func fiveHundredIdleConnectionsLeaveHealthzAnswering() throws {
        // Both ends live in this process: room for 1,000 sockets and more.
        var descriptors = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptors)
        if descriptors.rlim_cur < 4096 {
            descriptors.rlim_cur = min(4096, descriptors.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptors)
        }
        let server = try server()
        defer { server.stop() }
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<500 { held.append(try Socket.connect(port: server.port)) }
        let tricklers = held.prefix(60)
        _ = tricklers.map { Socket.send($0, Array("POST /api/devices/register HTTP/1.1\r\n".utf8)) }
        var slowest = 0.0
        for round in 0..<5 {
            for socket in tricklers { _ = Socket.send(socket, Array("X-\(round): y\r\n".utf8)) }
            let (answer, seconds) = try get(server.port)
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            slowest = max(slowest, seconds)
        }
        // Timing on a shared CI machine is loose; the benchmark-grade
        // figure is in the closing note. It was "no answer at all" before.
        #expect(slowest < 1, "slowest /healthz \(slowest) s")
    }

    /// Over capacity, the oldest idle connection of the busiest address
    /// gives way with a 503; the newcomer is served.
    @Test func overCapacityTheOldestIdleConnectionGetsA503() throws {
        let server = try server { $0.maximumConnections = 8 }
        defer { server.stop() }
        let idle = try (0..<8).map { _ in try Socket.connect(port: server.port) }
        defer { idle.forEach { close($0) } }
        usleep(100_000)
        let (answer, _) = try get(server.port, "/api/printers")
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        let evicted = String(decoding: try Socket.readToEnd(idle[0]), as: UTF8.self)
        #expect(evicted.hasPrefix("HTTP/1.1 503"), "\(evicted)")
        #expect(server.statistics.evicted >= 1)
    }

    /// A client that never finishes its head is answered 408 at the head's
    /// deadline, one that never finishes its body at the request's.
    @Test func slowClientsAreBoundedByDeadlines() throws {
        let server = try server {
            $0.headerTimeout = 0.3
            $0.requestTimeout = 0.6
        }
        defer { server.stop() }
        let silent = try Socket.connect(port: server.port)
        defer { close(silent) }
        let slowBody = try Socket.connect(port: server.port)
        defer { close(slowBody) }
        _ = Socket.send(slowBody, Array("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n{".utf8))
        let started = MonotonicClock.seconds()
        let first = String(decoding: try Socket.readToEnd(silent), as: UTF8.self)
        let headGone = MonotonicClock.seconds() - started
        let second = String(decoding: try Socket.readToEnd(slowBody), as: UTF8.self)
        let bodyGone = MonotonicClock.seconds() - started
        #expect(first.hasPrefix("HTTP/1.1 408") && second.hasPrefix("HTTP/1.1 408"))
        #expect(headGone < 2 && bodyGone >= 0.5 && bodyGone < 3, "\(headGone) s, \(bodyGone) s")
        #expect(server.statistics.timedOut == 2)
    }
}
