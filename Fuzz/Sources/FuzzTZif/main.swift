import CLibFuzzer

#if canImport(Glibc)
import Glibc
#endif
@testable import TimeZones

/// The time zone files' parser (TZif.parse, RFC 8536) and the POSIX TZ rules
/// of their footers (POSIXTimeZone): any bytes are either refused (nil) or a
/// zone whose offsets stay within -25 h...+26 h and whose changes agree with
/// its offsets (the offset differs across each change and not before it).
/// The input is read as a whole file, and (when it has no newline) as a
/// footer rule, alone and inside a file, which must agree on whether it is one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTZif(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    if let tzif = TZif.parse(bytes) {
        check(ZoneRules(identifier: "fuzz", tzif: tzif), around: tzif.transitions, seed: bytes)
    }
    guard count <= 512, !bytes.contains(0x0A) else { return 0 }
    let rule = POSIXTimeZone(utf8: bytes)
    let file = TZif.parse(wrapped(footer: bytes))
    precondition((file != nil) == (rule != nil || bytes.isEmpty), "a rule alone and in a file disagree")
    if let file, let rule {
        precondition(file.footer == rule, "the file's footer is not the rule")
        check(ZoneRules(identifier: "fuzz", tzif: file), around: [], seed: bytes)
    }
    return 0
}

/// Offsets and changes at the ends of time, around the file's transitions
/// (the first 32) and at instants taken from the input.
func check(_ zone: ZoneRules, around transitions: [Int64], seed: [UInt8]) {
    var instants: [Int64] = [.min, .min + 1, -1, 0, 1, 1_798_761_600, .max - 1, .max]
    for transition in transitions.prefix(32) {
        instants += [transition &- 1, transition, transition &+ 1]
    }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for (index, byte) in seed.enumerated() {
        hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        if index % 64 == 63 { instants.append(Int64(bitPattern: hash)) }
    }
    instants.append(Int64(bitPattern: hash))
    for instant in instants {
        let offset = zone.offset(at: instant)
        precondition(TZif.utcOffsets.contains(offset), "offset \(offset) at \(instant)")
        if let change = zone.nextChange(after: instant) {
            precondition(change > instant, "change \(change) not after \(instant)")
            precondition(zone.offset(at: change - 1) == offset, "a change before \(change) after \(instant)")
            precondition(zone.offset(at: change) != offset, "no change at \(change)")
        }
    }
    // Two years of periods from the input's instant: ascending, each a change.
    let from = Int64(bitPattern: hash)
    let (to, overflow) = from.addingReportingOverflow(2 * 31_556_952)
    let periods = zone.periods(from: from, to: overflow ? .max : to)
    for (earlier, later) in zip(periods, periods.dropFirst()) {
        precondition(earlier.start < later.start && earlier.offset != later.offset, "periods \(earlier) \(later)")
        precondition(zone.offset(at: later.start) == later.offset, "period \(later)")
    }
}

/// A version 2 file of one type and no transitions, with `footer` as its TZ string.
func wrapped(footer: [UInt8]) -> [UInt8] {
    func header(types: UInt8, characters: UInt8) -> [UInt8] {
        Array("TZif2".utf8) + [UInt8](repeating: 0, count: 15 + 16) + [0, 0, 0, types, 0, 0, 0, characters]
    }
    return header(types: 1, characters: 1) + [0, 0, 0, 0, 0, 0, 0] + header(types: 1, characters: 1)
        + [0, 0, 0, 0, 0, 0, 0] + [0x0A] + footer + [0x0A]
}

var arguments = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argv) { data, size in fuzzTZif(data, size) })
