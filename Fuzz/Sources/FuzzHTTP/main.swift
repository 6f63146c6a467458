import CLibFuzzer
import COpenSSL
@testable import ControlAPI
import DeviceStore
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// The API's request parser, fed the input whole, in two pieces and a byte
/// at a time (every way must read the same request or the same refusal),
/// and every request it accepts handed to the routes over a real store.
nonisolated(unsafe) let api: ControlAPI = {
    var template = Array("/tmp/printbridge-fuzz-http-XXXXXX".utf8CString)
    let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    let store = try! DeviceStore(directory: directory)
    // No shutting out after failed authentication: the inputs straight to
    // the routes (no peer) and the one in 32 over TLS (from 127.0.0.1) are
    // counted against different sources, shut out at different moments of
    // the wall clock, so one path could answer 429 where the other answers
    // 401 and fail the TLS comparison on a correct server. The throttle has
    // its own tests (AuthThrottleTests, HostileCallerTests).
    return ControlAPI(
        store: store, apiToken: nil, apns: .init(configured: false, bundleID: "com.example.app", production: false),
        metrics: AgentMetrics(apnsMode: "dry-run"), authThrottle: AuthThrottle(freeFailures: 1 << 40))
}()

/// A failed check stops the run with its message (libFuzzer keeps the
/// input). `precondition` drops its message in optimised builds, as the
/// fuzzers are built: CI's one failure of the TLS handshake check
/// (2026-11-27) came without the SSL error that would say why.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String = "", line: UInt = #line) {
    if !condition() { fatalError("FuzzHTTP check failed: \(message())", line: line) }
}

/// What OpenSSL queued on this thread, for a failed check's message.
func openSSLErrors() -> String {
    var text: [String] = []
    var code = ERR_get_error()
    while code != 0 {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        text.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        code = ERR_get_error()
    }
    return text.isEmpty ? "none" : text.joined(separator: "; ")
}

func summary(_ outcome: HTTPRequestParser.Outcome) -> String {
    switch outcome {
    case .incomplete: return "incomplete"
    case .invalid(let response): return "invalid \(response.status)"
    case .complete(let request):
        return "complete \(request.method) \(request.path) \(request.headers.sorted { $0.key < $1.key }) \(request.body)"
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let limits = HTTPServer.Limits()
    let whole = HTTPRequestParser.parse(bytes, limits: limits)
    // Two pieces, cut where the first byte says.
    var pieces = HTTPRequestParser(limits: limits)
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    var split = bytes[0..<cut].withUnsafeBytes { pieces.append($0) }
    if case .incomplete = split { split = bytes[cut...].withUnsafeBytes { pieces.append($0) } }
    check(summary(whole) == summary(split), "\(summary(whole)) vs \(summary(split))")
    if bytes.count <= 4096 {
        var trickle = HTTPRequestParser(limits: limits)
        var outcome = HTTPRequestParser.Outcome.incomplete
        for byte in bytes {
            outcome = [byte].withUnsafeBytes { trickle.append($0) }
            if case .incomplete = outcome { continue }
            break
        }
        check(summary(whole) == summary(outcome), "\(summary(whole)) vs \(summary(outcome)) a byte at a time")
        check(trickle.work <= bytes.count, "more work than bytes")
    }
    if case .complete(let request) = whole {
        let response = api.handle(request)
        check((100..<600).contains(response.status))
        _ = response.serialized()
    }
    // About one input in 32 (a handshake each: a few ms) also through the TLS
    // server, chosen by the bytes so a reproducer takes the same path.
    if bytes.count <= 4096, bytes.reduce(0, { $0 &+ Int($1) }) % 32 == 0 {
        let (status, detail) = statusOverTLS(bytes)
        switch whole {
        case .incomplete: check(status == nil, "an unfinished request was answered \(status ?? 0) over TLS")
        case .invalid(let response):
            check(status == response.status, "over TLS \(status ?? 0), parsed \(response.status); \(detail)")
        case .complete:
            check(status.map { (100..<600).contains($0) } == true, "a request over TLS got no answer; \(detail)")
        }
    }
    return 0
}

var arguments = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argv) { data, size in fuzzHTTP(data, size) })

/// The same bytes through a real server over TLS (issue 34): the agent's own
/// kind of certificate, the first byte's sniffing, OpenSSL's records, the
/// server's read loop, then the same parser and routes; the status it
/// answers must be the one the parser and routes give above.
/// (A static, so it is made on first use: top-level code after the
/// fuzzer's driver call in this file never runs before the inputs do.)
enum TLSTarget {
    nonisolated(unsafe) static let shared: (server: HTTPServer, client: OpaquePointer) = {
        var template = Array("/tmp/printbridge-fuzz-tls-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        try! APICertificate.make(certificate: directory + "/cert.pem", key: directory + "/key.pem", hostNames: [])
        let certificate = try! APICertificate.load(certificate: directory + "/cert.pem", key: directory + "/key.pem")
        let policy = HTTPServer.TLSPolicy(context: try! TLSServerContext(certificate), httpsHint: "https://127.0.0.1") { _ in true }
        let server = try! HTTPServer(host: "127.0.0.1", port: 0, tls: policy) { api.handle($0) }
        try! server.start()
        return (server, SSL_CTX_new(TLS_client_method())!)
    }()
}

/// An OpenSSL call on the client's blocking socket, made again when a
/// signal cut it short: libFuzzer's own timer (SIGALRM every second, for
/// -timeout) makes recv return EINTR, which OpenSSL reports as WANT_READ.
/// Taken for the server's doing, that failed CI's fuzzing twice on
/// 2026-11-27 ("no TLS handshake", then "a request over TLS got no answer;
/// ... SSL error 2, errno 4").
func again(_ ssl: OpaquePointer, _ operation: () -> Int32) -> Int32 {
    while true {
        let result = operation()
        guard result <= 0 else { return result }
        let interrupted = errno == EINTR
        let code = SSL_get_error(ssl, result)
        guard interrupted && (code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE) else { return result }
    }
}

/// The status line's code the TLS server answered `bytes` with (its side
/// closed after them), or nil when it answered nothing; and what the client
/// saw, for a failed check's message.
func statusOverTLS(_ bytes: [UInt8]) -> (status: Int?, detail: String) {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    check(socket >= 0)
    defer { close(socket) }
    // Generous: a busy 2-core machine (CI, right after the test suite) must
    // not turn a slow answer into a failed check; libFuzzer's own -timeout
    // (10 s, scripts/fuzz.sh) is the bound.
    var timeout = timeval(tv_sec: 8, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(TLSTarget.shared.server.port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    check(connected == 0, "the TLS server is not listening")
    let ssl = SSL_new(TLSTarget.shared.client)!
    defer { SSL_free(ssl) }
    SSL_set_fd(ssl, socket)
    let handshake = again(ssl) { SSL_connect(ssl) }
    if handshake != 1 {
        let code = SSL_get_error(ssl, handshake), error = errno
        check(false, "no TLS handshake with the agent's server: SSL error \(code), errno \(error), OpenSSL: \(openSSLErrors())")
    }
    if !bytes.isEmpty { _ = bytes.withUnsafeBytes { data in again(ssl) { SSL_write(ssl, data.baseAddress, Int32(data.count)) } } }
    _ = SSL_shutdown(ssl)  // close_notify: the request ends here
    var answer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    var ending = ""
    while answer.count < 1 << 20 {
        let count = chunk.withUnsafeMutableBytes { buffer in again(ssl) { SSL_read(ssl, buffer.baseAddress, Int32(buffer.count)) } }
        guard count > 0 else {
            ending = "read ended with SSL error \(SSL_get_error(ssl, count)), errno \(errno)"
            break
        }
        answer += chunk.prefix(Int(count))
    }
    let detail = "\(answer.count) bytes answered (\(String(decoding: answer.prefix(40), as: UTF8.self).debugDescription)), \(ending)"
    guard answer.starts(with: Array("HTTP/1.1 ".utf8)), answer.count >= 12 else { return (nil, detail) }
    return (Int(String(decoding: answer[9..<12], as: UTF8.self)), detail)
}
