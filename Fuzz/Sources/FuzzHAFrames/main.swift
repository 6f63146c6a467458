import CLibFuzzer

#if canImport(Glibc)
import Glibc
#endif
import PrintBridgeCore

/// HA frames as the link hands them over, one per line, so the registry can
/// teach the matcher on the way: each is read by `HAFrameReader` (a message,
/// or a coalesced array of them) or refused with an error, never a crash.
/// What the reader makes of `subscribe_entities`' events (added, changed
/// with `+`/`-`, removed entities) is held to a model of the states HA's
/// frontend keeps (`EntitiesModel`); every printer input goes through a
/// pipeline, whose pushes are made as the agent makes them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHAFrames(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    var reader = HAFrameReader()
    let devices = [Device(id: "phone", apnsToken: String(repeating: "ab", count: 32), activityTokens: ["x1c": String(repeating: "cd", count: 40)])]
    var pipeline = PrinterPipeline(devices: devices, clock: ManualClock())
    var model = EntitiesModel()
    for frame in bytes.split(separator: 0x0A) {
        let slice = UnsafeRawBufferPointer(rebasing: frame)
        let messages: [HAMessage]
        do throws(HAMessageError) {
            messages = try reader.messages(in: slice)
        } catch {
            continue  // refused, as the link refuses it: the next frame
        }
        for message in messages {
            let inputs = reader.inputs(from: message)
            model.check(message, inputs: inputs, matcher: reader.matcher)
            for input in inputs { _ = pipeline.handle(input) }
        }
    }
    return 0
}

var arguments = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argv) { data, size in fuzzHAFrames(data, size) })
