import CJSONScan
import Testing

/// The coalesced-array scan's two ways (16 bytes at a time, and byte by
/// byte) find the same end of an object, with the structural bytes and
/// escapes at every position of a block.
@Suite struct JSONObjectScanTests {
    func length(_ text: String, depth: Int = 511) -> (vectorized: Int, bytewise: Int) {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            (Int(pb_json_object_length(buffer.baseAddress, buffer.count, Int32(depth), 1)),
             Int(pb_json_object_length(buffer.baseAddress, buffer.count, Int32(depth), 0)))
        }
    }

    @Test func theEndOfAnObjectStepsOverStringsEscapesAndNesting() {
        let object = #"{"a":"x \" } ] \\","b":[{"c":"{[\\\""}],"d":1}"#
        for padding in 0..<40 {
            // The same object shifted through the blocks, with more after it.
            let text = "{\"pad\":\"" + String(repeating: "p", count: padding) + "\",\"o\":" + object + "}" + ",{\"next\":1}"
            let expected = text.utf8.count - ",{\"next\":1}".utf8.count
            let found = length(text)
            #expect(found.vectorized == expected && found.bytewise == expected, "padding \(padding): \(found)")
        }
    }

    @Test func aBackslashAtABlocksLastByteEscapesTheNextBlocksFirst() {
        // The string's backslash sits at every offset; the quote it escapes is the next byte.
        for offset in 0..<48 {
            let text = "{\"s\":\"" + String(repeating: "q", count: offset) + "\\\"}]\"}"
            let found = length(text)
            #expect(found.vectorized == text.utf8.count && found.bytewise == text.utf8.count, "offset \(offset): \(found)")
        }
    }

    @Test func whatDoesNotEndIsRefused() {
        for text in [
            "", "[1]", "{", #"{"a":"never ends}"#, #"{"a":{"b":1}"#, "{\"a\":\"x\\", String(repeating: "{", count: 40),
        ] {
            let found = length(text)
            #expect(found.vectorized == 0 && found.bytewise == 0, "\(text.debugDescription): \(found)")
        }
        // Nesting stops at the depth given, both ways.
        let deep = String(repeating: "[", count: 20) + String(repeating: "]", count: 20)
        let nested = "{\"a\":" + deep + "}"
        #expect(length(nested, depth: 21) == (0, 0))
        #expect(length(nested, depth: 22) == (nested.utf8.count, nested.utf8.count))
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
            for _ in 0..<Int(random.next() % 200) {
                let closing = random.next() % 25 == 0
                bytes.append(closing ? Array("}]".utf8)[Int(random.next() % 2)] : alphabet[Int(random.next() % UInt64(alphabet.count))])
            }
            let found = bytes.withUnsafeBufferPointer { buffer in
                (pb_json_object_length(buffer.baseAddress, buffer.count, 64, 1), pb_json_object_length(buffer.baseAddress, buffer.count, 64, 0))
            }
            #expect(found.0 == found.1, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            // Read past two blocks (an end there, or none at all).
            if bytes.count > 32 && (found.0 == 0 || found.0 > 32) { longObjects += 1 }
        }
        #expect(longObjects > 2_000, "inputs read past two blocks: \(longObjects)")
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
