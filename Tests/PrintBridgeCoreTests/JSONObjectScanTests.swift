import CJSONScan
import Testing

/// The coalesced-array scan's ways (64 and 32 bytes at a time where the
/// machine has AVX2, 16, and byte by byte) find the same end of an object,
/// with the structural bytes and escapes at every position of a block.
@Suite struct JSONObjectScanTests {
    /// The widths this machine reads: byte by byte, 16, and 32 and 64 with AVX2.
    static let widths: [Int32] = pb_json_scan_widest() >= 64 ? [1, 16, 32, 64] : [1, 16]

    /// The length found at each width, byte by byte first.
    static func lengths(_ bytes: [UInt8], depth: Int32) -> [Int] {
        bytes.withUnsafeBufferPointer { buffer in
            widths.map { Int(pb_json_object_length(buffer.baseAddress, buffer.count, depth, $0)) }
        }
    }

    /// The length every width agrees on; nil (and the lengths) when they differ.
    func length(_ text: String, depth: Int = 511) -> Int? {
        let found = Self.lengths(Array(text.utf8), depth: Int32(depth))
        return Set(found).count == 1 ? found[0] : nil
    }

    @Test func theMachinesWidestBlockIsOneOfTheWidths() {
        let widest = pb_json_scan_widest()
        #if arch(x86_64)
        #expect(widest == 16 || widest == 64)
        #endif
        #expect(Self.widths.last.map(Int.init) == Int(widest) || widest == 1)
    }

    @Test func theEndOfAnObjectStepsOverStringsEscapesAndNesting() {
        let object = #"{"a":"x \" } ] \\","b":[{"c":"{[\\\""}],"d":1}"#
        for padding in 0..<140 {
            // The same object shifted through the blocks (64 bytes the widest), with more after it.
            let text = "{\"pad\":\"" + String(repeating: "p", count: padding) + "\",\"o\":" + object + "}" + ",{\"next\":1}"
            let expected = text.utf8.count - ",{\"next\":1}".utf8.count
            let found = length(text)
            #expect(found == expected, "padding \(padding): \(Self.lengths(Array(text.utf8), depth: 511))")
        }
    }

    @Test func aBackslashAtABlocksLastByteEscapesTheNextBlocksFirst() {
        // The string's backslash sits at every offset; the quote it escapes is the next byte.
        for offset in 0..<140 {
            let text = "{\"s\":\"" + String(repeating: "q", count: offset) + "\\\"}]\"}"
            let found = length(text)
            #expect(found == text.utf8.count, "offset \(offset): \(Self.lengths(Array(text.utf8), depth: 511))")
        }
    }

    @Test func whatDoesNotEndIsRefused() {
        for text in [
            "", "[1]", "{", #"{"a":"never ends}"#, #"{"a":{"b":1}"#, "{\"a\":\"x\\", String(repeating: "{", count: 40),
        ] {
            #expect(length(text) == 0, "\(text.debugDescription): \(Self.lengths(Array(text.utf8), depth: 511))")
        }
        // Nesting stops at the depth given, both ways.
        let deep = String(repeating: "[", count: 20) + String(repeating: "]", count: 20)
        let nested = "{\"a\":" + deep + "}"
        #expect(length(nested, depth: 21) == 0)
        #expect(length(nested, depth: 22) == nested.utf8.count)
    }

    @Test func nestingIsRefusedAtTheLimitWhereverItFallsInABlock() {
        // Brackets counted a block at a time must still stop at the limit,
        // and a block that closes to depth 0 must still end where it does.
        for padding in 0..<140 {
            for nesting in [3, 10, 40] {
                let text = "{\"p\":\"" + String(repeating: "p", count: padding) + "\",\"x\":"
                    + String(repeating: "[", count: nesting) + String(repeating: "]", count: nesting) + "}"
                // The object itself is one level: the deepest point is 1 + nesting.
                #expect(length(text, depth: nesting + 1) == 0, "padding \(padding), nesting \(nesting)")
                #expect(length(text + "{}", depth: nesting + 2) == text.utf8.count, "padding \(padding), nesting \(nesting)")
            }
        }
    }

    @Test func randomBytesEndTheSameBothWays() {
        // Structural bytes, escapes and filler in any order: the two ways agree on every prefix.
        var random = SplitMixLocal(seed: 7)
        var longObjects = 0
        for round in 0..<4_000 {
            // Half the inputs without backslashes: blocks read by the quotes' prefix XOR.
            // Closing brackets rare, so that objects run over several blocks.
            let alphabet = Array((round % 2 == 0 ? #"{["\aaaaxxxxx"# : #"{["aaaaaxxxxx"#).utf8)
            var bytes: [UInt8] = [UInt8(ascii: "{")]
            for _ in 0..<Int(random.next() % 300) {
                let closing = random.next() % 25 == 0
                bytes.append(closing ? Array("}]".utf8)[Int(random.next() % 2)] : alphabet[Int(random.next() % UInt64(alphabet.count))])
            }
            let found = Self.lengths(bytes, depth: 64)
            #expect(Set(found).count == 1, "\(found): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            // A low limit: blocks whose opens may reach it are read bracket by bracket.
            let shallow = Self.lengths(bytes, depth: 6)
            #expect(Set(shallow).count == 1, "depth 6: \(shallow): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            // Read past two blocks of 64 (an end there, or none at all).
            if bytes.count > 128 && (found[0] == 0 || found[0] > 128) { longObjects += 1 }
        }
        #expect(longObjects > 1_000, "inputs read past two blocks: \(longObjects)")
    }
}

/// SplitMix64 (TestSupport has one; this target does not depend on it).
struct SplitMixLocal {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
