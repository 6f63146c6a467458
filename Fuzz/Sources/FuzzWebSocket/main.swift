import CLibFuzzer
@testable import HomeAssistantLink

#if canImport(Glibc)
import Glibc
#endif

/// The ws:// link's own WebSocket code: the input is what a server sends
/// after our upgrade request (the answer's head, then frames), read by
/// `WebSocketUpgrade` and `WebSocketFramer` as the link reads it. Read whole,
/// in two pieces (cut where the first byte says) and byte by byte, it must
/// come to the same outcome, the same messages and the same answers (pongs,
/// the close), every message within the limit and every frame we write
/// masked (RFC 6455 §5.3).
struct Run: Equatable {
    var upgrade = "needMore"
    var messages: [[UInt8]] = []
    var outcome: WebSocketFramer.Outcome = .open
    /// Our frames, unmasked: opcode, then payload.
    var written: [[UInt8]] = []
}

/// RFC 6455 §1.3's example key: the seeds carry its accept value.
let key = "dGhlIHNhbXBsZSBub25jZQ=="
let maximum = 4096

func run(_ bytes: UnsafeRawBufferPointer, cuts: [Int]) -> Run {
    var result = Run()
    var upgrade: WebSocketUpgrade? = WebSocketUpgrade(key: key)
    var framer: WebSocketFramer?
    var message: [UInt8] = []
    var start = 0
    for end in cuts + [bytes.count] where end > start {
        var piece = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        start = end
        if upgrade != nil {
            switch upgrade!.receive(piece) {
            case .needMore: continue
            case .failed(let reason):
                result.upgrade = reason
                return result
            case .upgraded(let at):
                precondition(at >= 0 && at <= piece.count, "the frames start outside the piece")
                result.upgrade = "upgraded"
                upgrade = nil
                framer = WebSocketFramer(maximumMessageBytes: maximum)
                piece = UnsafeRawBufferPointer(rebasing: piece[at...])
            }
        }
        guard let framer else { fatalError("no framer after the upgrade") }
        result.outcome = framer.receive(piece) { part, final in
            message += part
            precondition(message.count <= maximum, "a message over the limit: \(message.count)")
            if final {
                result.messages.append(message)
                message = []
            }
        }
        var pending = framer.takePending()
        while !pending.isEmpty {
            let frame = unmask(&pending)
            result.written.append(frame)
        }
        if result.outcome != .open { break }
    }
    return result
}

/// One of our frames off the front of `bytes`, unmasked ([opcode] + payload); it must be masked and final.
func unmask(_ bytes: inout [UInt8]) -> [UInt8] {
    precondition(bytes.count >= 6 && bytes[0] & 0x80 != 0 && bytes[1] & 0x80 != 0, "a frame of ours unmasked or not final")
    let length = Int(bytes[1] & 0x7F)
    precondition(length <= 125, "a control frame of ours over 125 bytes")
    precondition(bytes.count >= 6 + length, "a frame of ours cut short")
    let mask = Array(bytes[2..<6])
    let payload = bytes[6..<(6 + length)].enumerated().map { $0.element ^ mask[$0.offset % 4] }
    let opcode = bytes[0] & 0x0F
    bytes.removeFirst(6 + length)
    return [opcode] + payload
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocket(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let whole = run(bytes, cuts: [])
    let cut = Int(bytes[0]) * count / 256
    let halves = run(bytes, cuts: [cut])
    precondition(whole == halves, "cut at \(cut): \(whole) vs \(halves)")
    if count <= 4096 {
        let single = run(bytes, cuts: Array(1..<count))
        precondition(whole == single, "byte by byte: \(whole) vs \(single)")
    }
    return 0
}

var arguments = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argv) { data, size in fuzzWebSocket(data, size) })
