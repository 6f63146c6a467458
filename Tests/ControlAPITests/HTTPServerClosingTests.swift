import ControlAPI
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// How the API server ends a connection, seen from a plain socket on 127.0.0.1.
@Suite struct HTTPServerClosingTests {
    static func server(lingerSeconds: Double) throws -> HTTPServer {
        var limits = HTTPServer.Limits()
        limits.maximumBodyBytes = 1024
        limits.lingerSeconds = lingerSeconds
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { _ in
            HTTPResponse(status: 200, body: #"{"ok":true}"#)
        }
        try server.start()
        return server
    }

    /// A client uploading more than the limit gets the 413 the server sent
    /// when it saw the headers, and its upload is not cut off by a reset.
    @Test func anUploadRefusedEarlyStillGetsItsAnswer() throws {
        let server = try Self.server(lingerSeconds: 10)  // a loaded machine may pause the upload
        defer { server.stop() }
        let socket = try Self.connect(port: server.port)
        defer { close(socket) }
        #expect(Self.send(socket, Array("POST /api/devices/register HTTP/1.1\r\nHost: x\r\nContent-Length: 262144\r\n\r\n".utf8)))
        // The answer is on its way before the body: a client mid-upload.
        var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 5000) == 1)
        // The body in pieces, as over a slower link than loopback.
        var sentWhole = true
        for _ in 0..<16 where sentWhole {
            sentWhole = Self.send(socket, [UInt8](repeating: UInt8(ascii: "a"), count: 16_384))
            usleep(5_000)
        }
        #expect(sentWhole, "the upload was cut off")
        shutdown(socket, Int32(SHUT_WR))
        let answer = String(decoding: try Self.readToEnd(socket), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 413"))
    }

    /// A client that keeps its end open after the answer is let go after
    /// `lingerSeconds`: the server does not hold connections forever.
    @Test func aClientThatNeverClosesIsLetGo() throws {
        let server = try Self.server(lingerSeconds: 0.3)
        defer { server.stop() }
        let socket = try Self.connect(port: server.port)
        defer { close(socket) }
        #expect(Self.send(socket, Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8)))
        let answer = String(decoding: try Self.readToEnd(socket), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        usleep(600_000)
        // The server's socket is gone: what we send now is answered with a
        // reset, and the send after that fails.
        var failed = false
        for _ in 0..<250 where !failed {
            failed = !Self.send(socket, Array("more".utf8))
            if !failed { usleep(20_000) }
        }
        #expect(failed, "the server still holds the connection")
    }

    struct SocketError: Error, CustomStringConvertible {
        var description: String
    }

    static func connect(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw SocketError(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(socket)
            throw SocketError(description: "connect: \(errno)")
        }
        return socket
    }

    /// Sends everything; false if the connection failed (reset, closed) first.
    static func send(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }

    static func readToEnd(_ socket: Int32) throws -> [UInt8] {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { return data }
            guard count > 0 else { throw SocketError(description: "recv: errno \(errno) after \(data.count) bytes") }
            data += buffer[0..<count]
        }
    }
}
