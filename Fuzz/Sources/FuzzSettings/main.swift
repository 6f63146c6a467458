import CLibFuzzer

#if canImport(Glibc)
import Glibc
#endif
import PrintBridgeCore

/// The settings file parser: never crashes, and a file reads the same with
/// LF or CRLF line ends and with or without a byte-order mark.
let known = ["HA_URL", "HA_TOKEN", "HA_TOKEN_FILE", "API_LISTEN", "API_TOKEN", "LOG_LEVEL", "MILESTONES", "STATE_DIR"]

func read(_ text: String) -> String {
    do { return "\(try SettingsFileParser.parse(text, path: "fuzz.yaml", known: known).sorted { $0.key < $1.key })" } catch {
        return "error line \(error.line)"
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSettings(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let plain = read(text)
    guard !text.unicodeScalars.contains("\r"), !text.hasPrefix("\u{FEFF}") else { return 0 }
    let crlf = text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
    precondition(read(crlf) == plain, "CRLF reads differently: \(read(crlf)) vs \(plain)")
    precondition(read("\u{FEFF}" + text) == plain, "a byte-order mark reads differently")
    return 0
}

var arguments = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argv) { data, size in fuzzSettings(data, size) })
