import AgentSettings
import ArgumentParser
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// `printbridge health`: asks the running agent's /healthz on this machine,
/// for a container's HEALTHCHECK (the runtime image has no curl binary).
struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Ask the running agent's /healthz (for Docker's HEALTHCHECK): exit 0 when ready, 1 when not.",
        discussion: """
            Finds the agent's API from API_LISTEN (or --config) as `run` does: 0.0.0.0 and :: are asked on \
            127.0.0.1 and ::1. Prints /healthz's answer. Exit 0 on 200; 1 when the agent answers 503 or \
            cannot be reached; 78 when API_LISTEN is off or not host:port.
            """)

    @Option(name: .long, help: "Seconds to wait for the answer.")
    var timeout: Int = 5

    @OptionGroup var configOption: ConfigOption

    func validate() throws {
        guard (1...300).contains(timeout) else { throw ValidationError("--timeout must be 1 to 300 seconds") }
    }

    func run() throws {
        let settings = try configOption.settings()
        if let problem = settings.problems(in: [.api]).first(where: { $0.setting == "API_LISTEN" }) {
            throw settings.failure(problem)
        }
        guard let listen = settings.api.listen else {
            throw CommandFailure.config("API_LISTEN is off: the agent serves no /healthz to ask")
        }
        var host = listen.host
        let port = listen.port
        guard port > 0 else {
            throw CommandFailure.config("API_LISTEN has port 0 (any free port): give the port the agent listens on")
        }
        if host == "0.0.0.0" || host.isEmpty { host = "127.0.0.1" }
        if host == "::" { host = "::1" }
        let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/healthz"
        switch Self.get(host: host, port: port, path: "/healthz", timeout: timeout) {
        case .success(let (status, body)):
            StandardStreams.out(body.isEmpty ? "HTTP \(status)" : body)
            if status != 200 { throw CommandFailure.unhealthy() }  // the body says why
        case .failure(let reason):
            throw CommandFailure.unhealthy("\(url): \(reason)")
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One HTTP/1.1 GET over a plain socket (the agent's API on this
    /// machine, never through a proxy): the status and the body (at most
    /// 64 KB). `timeout` bounds the connect, the send and each read.
    static func get(host: String, port: Int, path: String, timeout: Int) -> Result<(Int, String), Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let address = list?.pointee else {
            return .failure(Failure(description: "cannot resolve \(host): \(String(cString: gai_strerror(resolved)))"))
        }
        defer { freeaddrinfo(list) }
        let descriptor = socket(address.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(Failure(description: "socket: \(String(cString: strerror(errno)))")) }
        defer { close(descriptor) }
        // On Linux the send timeout also bounds connect().
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 else {
            return .failure(Failure(description: "cannot connect: \(String(cString: strerror(errno)))"))
        }
        let hostHeader = host.contains(":") ? "[\(host)]" : host
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(hostHeader):\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            return .failure(Failure(description: "cannot send the request: \(String(cString: strerror(errno)))"))
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while answer.count < 65536 + 16384 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else {
                return .failure(Failure(description: errno == EAGAIN ? "no answer within \(timeout) s" : "read: \(String(cString: strerror(errno)))"))
            }
            answer += buffer[..<count]
        }
        return parse(answer)
    }

    /// "HTTP/1.1 200 OK", headers, a blank line, the body (up to Content-Length, at most 64 KB).
    static func parse(_ answer: [UInt8]) -> Result<(Int, String), Failure> {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = answer.indices.dropLast(3).first(where: { answer[$0..<$0 + 4].elementsEqual(separator) }) else {
            return .failure(Failure(description: "not an HTTP answer"))
        }
        let head = String(decoding: answer[..<end], as: UTF8.self).split(separator: "\r\n")
        let statusLine = head.first?.split(separator: " ") ?? []
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            return .failure(Failure(description: "not an HTTP answer"))
        }
        var body = Array(answer[(end + 4)...])
        for line in head.dropFirst() where line.lowercased().hasPrefix("content-length:") {
            if let length = Int(line.dropFirst("content-length:".count).trimmingWhitespace), length < body.count {
                body = Array(body.prefix(length))
            }
        }
        return .success((status, String(decoding: body.prefix(65536), as: UTF8.self)))
    }
}
