import CLibFuzzer

#if canImport(Glibc)
import Glibc
#endif
import PrintBridgeCore

/// HA's timestamps: parsing never crashes, and whatever parses formats to a
/// text that parses to the same instant (to the microsecond).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzISO8601(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    guard let time = ISO8601.parse(text) else { return 0 }
    let formatted = ISO8601.format(time)
    guard let again = ISO8601.parse(formatted) else { fatalError("\(text) -> \(formatted) does not parse") }
    precondition(abs(again.seconds - time.seconds) < 0.001 || !time.seconds.isFinite, "\(text) -> \(formatted)")
    return 0
}

var arguments = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argv) { data, size in fuzzISO8601(data, size) })
