import CLibFuzzer
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
    return ControlAPI(
        store: store, apiToken: nil, apns: .init(configured: false, bundleID: "com.example.app", production: false),
        metrics: AgentMetrics(apnsMode: "dry-run"))
}()

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
    precondition(summary(whole) == summary(split), "\(summary(whole)) vs \(summary(split))")
    if bytes.count <= 4096 {
        var trickle = HTTPRequestParser(limits: limits)
        var outcome = HTTPRequestParser.Outcome.incomplete
        for byte in bytes {
            outcome = [byte].withUnsafeBytes { trickle.append($0) }
            if case .incomplete = outcome { continue }
            break
        }
        precondition(summary(whole) == summary(outcome), "\(summary(whole)) vs \(summary(outcome)) a byte at a time")
        precondition(trickle.work <= bytes.count, "more work than bytes")
    }
    if case .complete(let request) = whole {
        let response = api.handle(request)
        precondition((100..<600).contains(response.status))
        _ = response.serialized()
    }
    return 0
}

var arguments = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argv) { data, size in fuzzHTTP(data, size) })
