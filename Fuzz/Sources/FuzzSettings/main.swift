import CLibFuzzer

#if canImport(Glibc)
import Glibc
#endif
import PrintBridgeCore
import SettingsYAML
import Yams

/// The settings file's YAML reader: never crashes; a file reads the same,
/// positions and errors included, with LF or CRLF line ends and with or
/// without a byte-order mark; and a file that reads, composed and emitted
/// again by Yams' serializer, reads to the same settings and printers.
let known = ["HA_URL", "HA_TOKEN", "HA_TOKEN_FILE", "API_LISTEN", "API_TOKEN", "LOG_LEVEL", "MILESTONES", "STATE_DIR",
             "API_TRUSTED_NETWORKS"]
let lists: Set<String> = ["MILESTONES", "API_TRUSTED_NETWORKS"]

func document(_ text: String) -> Result<SettingsDocument, SettingsFileError> {
    Result { () throws(SettingsFileError) in try SettingsDocument(yaml: text, path: "fuzz.yaml", known: known, lists: lists) }
}

/// Whether two readings agree: the same values, positions and printers, or the same error.
func same(_ one: Result<SettingsDocument, SettingsFileError>, _ other: Result<SettingsDocument, SettingsFileError>) -> Bool {
    switch (one, other) {
    case let (.success(a), .success(b)): a.values == b.values && a.positions == b.positions && a.printers == b.printers
    case let (.failure(a), .failure(b)): a == b
    default: false
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSettings(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let plain = document(text)
    let withoutMark = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
    // Yams' compose drops a U+FEFF that starts a scalar (Foundation's
    // String(bytes:encoding:) takes it for a byte-order mark): no round trip then.
    if case .success(let first) = plain, !withoutMark.unicodeScalars.contains("\u{FEFF}"),
        let node = try? Yams.compose(yaml: withoutMark, .basic, .default, .utf8)
    {
        // Yams' serializer writes the same document another way: block
        // style, aliases expanded, its own quoting. (No node: an empty file.)
        // No line width: libyaml's emitter folds a long line of a folded
        // scalar after a more-indented line, where the fold is a line break
        // of the content, so the copy would say something else (found by
        // this target: Fuzz/Corpus/FuzzSettings/folded-long-line).
        guard let emitted = try? Yams.serialize(node: node, width: -1) else {
            preconditionFailure("a file that reads cannot be emitted again")
        }
        switch document(emitted) {
        case .success(let again):
            precondition(again.values == first.values, "re-emitted values differ: \(again.values) vs \(first.values)\n\(emitted)")
            precondition(again.printers == first.printers, "re-emitted printers differ\n\(emitted)")
        case .failure(let error): preconditionFailure("the re-emitted file does not read: \(error)\n\(emitted)")
        }
    }
    guard !text.unicodeScalars.contains("\r"), !text.hasPrefix("\u{FEFF}") else { return 0 }
    let crlf = text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
    precondition(same(document(crlf), plain), "CRLF reads differently: \(document(crlf)) vs \(plain)")
    precondition(same(document("\u{FEFF}" + text), plain), "a byte-order mark reads differently")
    return 0
}

var arguments = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argv) { data, size in fuzzSettings(data, size) })
