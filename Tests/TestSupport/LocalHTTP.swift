import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A GET to a server a test started on 127.0.0.1, without URLSession:
/// blocking, so a synchronous test or a `waitUntil` condition can ask a
/// running agent for its /metrics or /api/printers.
public enum LocalHTTP {
    public struct Reply: Sendable {
        public var status: Int
        public var body: String
    }

    /// The answer, or nil when there is none within `timeout` seconds (no
    /// server on the port, a reset, a stall).
    public static func get(port: Int, _ path: String, headers: [String: String] = [:], timeout: Double = 10) -> Reply? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        let bytes = Array((request + "\r\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { send(socket, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return nil }
            offset += count
        }
        // To the end of the body (Content-Length) or of the connection.
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let reply = parse(data, complete: false) { return reply }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? parse(data, complete: true) : nil }
            data += buffer[0..<count]
        }
    }

    /// The reply in `data`, once its head and whole body are there
    /// (`complete`: the connection ended, the body is what came).
    static func parse(_ data: [UInt8], complete: Bool) -> Reply? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, data.count - 3)).first(where: { data[$0..<($0 + 4)].elementsEqual(separator) }) else {
            return nil
        }
        let head = String(decoding: data[..<end], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        let body = Array(data[(end + 4)...])
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first
        if let length {
            guard body.count >= length else { return nil }  // more to come, or cut off
            return Reply(status: status, body: String(decoding: body.prefix(length), as: UTF8.self))
        }
        return complete ? Reply(status: status, body: String(decoding: body, as: UTF8.self)) : nil
    }
}
