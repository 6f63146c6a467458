import CJSONScan
import CLibFuzzer

#if canImport(Glibc)
import Glibc
#endif
import PrintBridgeCore

/// Differential: one reader uses the frame filter, the other parses every
/// frame. The input is several frames, one per line, so the registry can
/// teach the matchers on the way. For every frame the filter may only skip
/// what the parser would have found nothing in, and what both read must be
/// the same messages, the same printer inputs and, through a pipeline each,
/// the same pushes. In a coalesced array the filter may leave out household
/// events (the rest in order), and may read an array whose skipped element
/// the parser refuses, which loses the whole frame. `subscribe_entities`'
/// events (added, changed with `+`/`-`, removed entities) are held to a
/// model of the states HA's frontend keeps (`EntitiesModel`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHAFrames(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    var filtering = HAFrameReader()
    var parsing = HAFrameReader()
    parsing.usesFrameFilter = false
    let devices = [Device(id: "phone", apnsToken: String(repeating: "ab", count: 32), activityTokens: ["x1c": String(repeating: "cd", count: 40)])]
    var filteredPipeline = PrinterPipeline(devices: devices, clock: ManualClock())
    var parsedPipeline = PrinterPipeline(devices: devices, clock: ManualClock())
    var model = EntitiesModel()
    for frame in bytes.split(separator: 0x0A) {
        let slice = UnsafeRawBufferPointer(rebasing: frame)
        // The coalesced-array scan 16, 32 and 64 bytes at a time and byte by byte: the
        // same end for an object starting at any of the frame's first braces.
        var braces = 0
        for offset in slice.indices where slice[offset] == UInt8(ascii: "{") && braces < 8 {
            braces += 1
            let rest = UnsafeRawBufferPointer(rebasing: slice[offset...]).bindMemory(to: UInt8.self)
            // Every width the machine reads, and a low nesting limit too.
            for depth: Int32 in [511, 4] {
                let bytewise = pb_json_object_length(rest.baseAddress, rest.count, depth, 1)
                for width: Int32 in [16, 32, 64] {
                    let blocks = pb_json_object_length(rest.baseAddress, rest.count, depth, width)
                    precondition(blocks == bytewise, "the scan \(width) at a time: \(blocks), byte by byte \(bytewise), at \(offset), limit \(depth)")
                }
            }
        }
        let viaFilter = Result { () throws(HAMessageError) in try filtering.messages(in: slice) }
        let viaParser = Result { () throws(HAMessageError) in try parsing.messages(in: slice) }
        var filteredInputs: [PrinterInput] = []
        var parsedInputs: [PrinterInput] = []
        switch (viaFilter, viaParser) {
        case (.success(nil), .success(let messages?)):
            // Skipped: the parser must find no printer in it, and nothing the session needs.
            for message in messages {
                guard case .event = message else { fatalError("the filter skipped a non-event: \(message)") }
                parsedInputs += parsing.inputs(from: message)
            }
            precondition(parsedInputs.isEmpty, "the filter skipped a frame with printer input: \(parsedInputs)")
        case (.success(nil), .failure):
            break  // skipped unparsed; the parser refuses it
        case (.success(let a?), .success(let b?)):
            var kept = a[...]
            for message in b {
                if kept.first == message {
                    kept.removeFirst()
                    continue
                }
                // Left out by the filter: an event about no printer, only in an array.
                guard case .event = message, HAFrameFilter.arrayElements(slice) != nil else {
                    fatalError("the same frame read two ways: \(a) vs \(b)")
                }
                precondition(parsing.inputs(from: message).isEmpty, "the filter left out printer input: \(message)")
            }
            precondition(kept.isEmpty, "the filter read messages the parser did not: \(kept)")
            filteredInputs = a.flatMap { filtering.inputs(from: $0) }
            for message in b {
                let inputs = parsing.inputs(from: message)
                model.check(message, inputs: inputs, matcher: parsing.matcher)
                parsedInputs += inputs
            }
            precondition(filteredInputs == parsedInputs, "the same messages, other inputs")
        case (.success(let a?), .failure):
            // A skipped household element the parser refuses: only in an array.
            // The readers now know different things (a registry result the
            // parser lost), so the frames after this one are not compared.
            precondition(HAFrameFilter.arrayElements(slice) != nil, "the filter read a frame the parser refuses: \(a)")
            return 0
        case (.failure(let a), .failure(let b)):
            precondition(a == b)
        default:
            fatalError("filter and parser disagree: \(viaFilter) vs \(viaParser)")
        }
        for input in filteredInputs {
            let a = filteredPipeline.handle(input)
            let b = parsedPipeline.handle(input)
            precondition(a == b, "the same input, other pushes")
        }
    }
    return 0
}

var arguments = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argv) { data, size in fuzzHAFrames(data, size) })
