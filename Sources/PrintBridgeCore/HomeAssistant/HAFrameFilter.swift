import CJSONScan

/// Decides from raw bytes, without parsing, whether an HA message can be
/// about a printer at all.
///
/// A household with a few hundred entities sends thousands of `state_changed`
/// events a minute; ~98 % concern lights and sensors. This scan lets the
/// pipeline drop those before a JSON parse. It only says "irrelevant" when it
/// is certain: the frame is one `state_changed` event object laid out as HA
/// writes it and the matcher rejects its `data.entity_id`; or, for any other
/// layout of an object that is certainly an event, every `"entity_id"` key
/// in the frame has a plain string value and the matcher rejects each of
/// them. Certainly an event: the object begins `{"type":"event"` or
/// `{"id":N,"type":"event"`, or (keys sorted) ends `"type":"event"}` with no
/// other `"type"` key and no escape anywhere in the frame. A result or any
/// other message is never skipped: the session needs each one (FuzzHAFrames
/// found a non-event with household entity ids that an earlier filter skipped). Anything else — arrays, results, registry lists, escapes,
/// odd spacing it cannot follow — goes to the full parser, which therefore
/// produces exactly the same pushes.
public enum HAFrameFilter {
    public static func isIrrelevant(_ frame: UnsafeRawBufferPointer, matcher: EntityMatcher) -> Bool {
        guard let base = frame.baseAddress else { return false }
        var start = 0
        var end = frame.count
        while start < end, isSpace(frame[start]) { start += 1 }
        while end > start, isSpace(frame[end - 1]) { end -= 1 }
        guard end - start > 2, frame[start] == UInt8(ascii: "{"), frame[end - 1] == UInt8(ascii: "}") else {
            return false
        }
        let bytes = UnsafePointer<UInt8>(base.assumingMemoryBound(to: UInt8.self))
        if let entityID = haLayoutEntityID(bytes, from: start, to: end) {
            return !matcher.isRelevant(entityID: entityID)
        }
        guard startsAsEvent(bytes, from: start, to: end) || endsAsOnlyTypedEvent(bytes, from: start, to: end),
            find(stateChangedToken, in: bytes, from: start, to: end) != nil
        else { return false }

        var found = false
        var position = start
        while let keyStart = find(entityIDKey, in: bytes, from: position, to: end) {
            var i = keyStart + entityIDKey.count
            while i < end, isSpace(bytes[i]) { i += 1 }
            guard i < end, bytes[i] == UInt8(ascii: ":") else {
                // `"entity_id"` as a value, not a key: keep looking.
                position = keyStart + 1
                continue
            }
            i += 1
            while i < end, isSpace(bytes[i]) { i += 1 }
            guard i < end, bytes[i] == UInt8(ascii: "\"") else { return false }
            let valueStart = i + 1
            var j = valueStart
            while j < end, bytes[j] != UInt8(ascii: "\"") {
                if bytes[j] == UInt8(ascii: "\\") { return false }
                j += 1
            }
            guard j < end else { return false }
            let value = UnsafeRawBufferPointer(start: bytes + valueStart, count: j - valueStart)
            if matcher.isRelevant(entityID: value) { return false }
            found = true
            position = j + 1
        }
        return found
    }

    /// The objects of a frame that is a JSON array of objects (HA's
    /// coalesced messages: `homeassistant/components/websocket_api/http.py`,
    /// `_writer`, joins what was queued as `[` + `,`.join + `]`), as byte
    /// ranges, so each household event in it can be skipped like a frame of
    /// its own. The scan follows strings (to their closing quote, over
    /// escapes) and nesting only, 64 or 16 bytes at a time (`pb_json_object_length`,
    /// Sources/CJSONScan); it checks nothing else. Nil for any other
    /// frame, an element that is not an object, nesting the parser would
    /// refuse, or anything the scan cannot follow: the parser then reads the
    /// frame whole and says what is wrong with it.
    public static func arrayElements(_ frame: UnsafeRawBufferPointer) -> [Range<Int>]? {
        guard let base = frame.baseAddress else { return nil }
        let bytes = UnsafePointer<UInt8>(base.assumingMemoryBound(to: UInt8.self))
        let end = frame.count
        var i = 0
        func skipSpace() { while i < end, isSpace(bytes[i]) { i += 1 } }
        skipSpace()
        guard i < end, bytes[i] == UInt8(ascii: "[") else { return nil }
        i += 1
        var elements: [Range<Int>] = []
        while true {
            skipSpace()
            guard i < end, bytes[i] == UInt8(ascii: "{") else { return nil }
            let start = i
            // The array itself is one level: deeper than the parser goes, it reads and refuses the frame.
            let length = pb_json_object_length(bytes + start, end - start, Int32(JSONParser.maximumDepth - 1), -1)
            guard length > 0 else { return nil }
            i = start + length
            elements.append(start..<i)
            skipSpace()
            guard i < end else { return nil }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            guard bytes[i] == UInt8(ascii: "]") else { return nil }
            i += 1
            skipSpace()
            return i == end ? elements : nil
        }
    }

    /// HA's own serialisation of a subscribed state_changed event starts
    /// `{"id":N,"type":"event","event":{"event_type":"state_changed","data":{"entity_id":"…"`.
    /// When a frame starts exactly so, the entity id that follows is
    /// `data.entity_id` — the only one the pipeline reads — and the rest of
    /// the frame need not be looked at. Returns nil for any other layout.
    @inline(__always)
    private static func haLayoutEntityID(_ bytes: UnsafePointer<UInt8>, from start: Int, to end: Int)
        -> UnsafeRawBufferPointer?
    {
        var i = start
        guard matchesWords(haIDPrefix, bytes, at: i, end: end) else { return nil }
        i += haIDPrefix.count
        let digitsStart = i
        while i < end, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
        guard i > digitsStart, matchesWords(haEventPrefix, bytes, at: i, end: end) else { return nil }
        i += haEventPrefix.count
        let valueStart = i
        guard let quote = firstQuoteOrBackslash(bytes, from: i, to: end), bytes[quote] == UInt8(ascii: "\""),
            quote + 1 < end, bytes[quote + 1] == UInt8(ascii: ",") || bytes[quote + 1] == UInt8(ascii: "}")
        else { return nil }
        return UnsafeRawBufferPointer(start: bytes + valueStart, count: quote - valueStart)
    }

    /// `{"type":"event",` or `{"id":N,"type":"event",` (or `}` after it),
    /// with any whitespace between the tokens.
    private static func startsAsEvent(_ bytes: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var i = start + 1
        func skipSpace() { while i < end, isSpace(bytes[i]) { i += 1 } }
        func take(_ literal: [UInt8]) -> Bool {
            skipSpace()
            guard matches(literal, bytes, at: i, end: end) else { return false }
            i += literal.count
            return true
        }
        if take(idKey) {
            guard take(colon) else { return false }
            skipSpace()
            let digits = i
            while i < end, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
            guard i > digits, take(comma) else { return false }
        }
        guard take(typeKey), take(colon), take(eventValue) else { return false }
        skipSpace()
        return i < end && (bytes[i] == UInt8(ascii: ",") || bytes[i] == UInt8(ascii: "}"))
    }

    /// `…,"type":"event"}` as the object's last member, the frame's only
    /// `"type"` key, and no backslash in the frame (an escaped key could be
    /// another "type").
    private static func endsAsOnlyTypedEvent(_ bytes: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var i = end - 2  // before the closing brace
        func skipSpaceBack() { while i > start, isSpace(bytes[i]) { i -= 1 } }
        func takeBack(_ literal: [UInt8]) -> Bool {
            skipSpaceBack()
            let first = i - literal.count + 1
            guard first > start, matches(literal, bytes, at: first, end: end) else { return false }
            i = first - 1
            return true
        }
        guard takeBack(eventValue), takeBack(colon), takeBack(typeKey) else { return false }
        skipSpaceBack()
        guard bytes[i] == UInt8(ascii: ",") || bytes[i] == UInt8(ascii: "{") else { return false }
        var keys = 0
        var position = start
        while let found = find(typeKey, in: bytes, from: position, to: end) {
            var k = found + typeKey.count
            while k < end, isSpace(bytes[k]) { k += 1 }
            if k < end, bytes[k] == UInt8(ascii: ":") { keys += 1 }
            position = found + 1
        }
        guard keys == 1 else { return false }
        for k in start..<end where bytes[k] == UInt8(ascii: "\\") { return false }
        return true
    }

    /// `literal` at `index`, compared eight bytes at a time (the HA layout's
    /// 85 bytes of prefix are most of what the filter reads of a household
    /// event).
    @inline(__always)
    private static func matchesWords(_ literal: [UInt8], _ bytes: UnsafePointer<UInt8>, at index: Int, end: Int) -> Bool {
        let count = literal.count
        guard end - index >= count else { return false }
        let frame = UnsafeRawPointer(bytes + index)
        return literal.withUnsafeBytes { l in
            var k = 0
            while k + 8 <= count {
                if frame.loadUnaligned(fromByteOffset: k, as: UInt64.self) != l.loadUnaligned(fromByteOffset: k, as: UInt64.self) {
                    return false
                }
                k += 8
            }
            while k < count {
                if frame.load(fromByteOffset: k, as: UInt8.self) != l[k] { return false }
                k += 1
            }
            return true
        }
    }

    /// The first `"` or `\` in `bytes[from..<to]`, eight bytes at a time: a
    /// word holds one of them when `word ^ pattern` has a zero byte, and the
    /// lowest such byte is exact (the zero-byte test's borrow only marks
    /// bytes above a real zero).
    @inline(__always)
    private static func firstQuoteOrBackslash(_ bytes: UnsafePointer<UInt8>, from: Int, to: Int) -> Int? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = ones &* UInt64(UInt8(ascii: "\""))
        let backslashes = ones &* UInt64(UInt8(ascii: "\\"))
        let raw = UnsafeRawPointer(bytes)
        var i = from
        while i + 8 <= to {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let q = word ^ quotes
            let b = word ^ backslashes
            let found = ((q &- ones) & ~q | (b &- ones) & ~b) & highs
            if found != 0 { return i + found.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < to {
            if bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "\\") { return i }
            i += 1
        }
        return nil
    }

    @inline(__always)
    private static func matches(_ literal: [UInt8], _ bytes: UnsafePointer<UInt8>, at index: Int, end: Int) -> Bool {
        guard end - index >= literal.count else { return false }
        return literal.withUnsafeBufferPointer { l in
            for k in 0..<l.count where bytes[index + k] != l[k] { return false }
            return true
        }
    }

    private static let haIDPrefix: [UInt8] = Array("{\"id\":".utf8)
    private static let haEventPrefix: [UInt8] = Array(
        ",\"type\":\"event\",\"event\":{\"event_type\":\"state_changed\",\"data\":{\"entity_id\":\"".utf8)
    private static let idKey: [UInt8] = Array("\"id\"".utf8)
    private static let typeKey: [UInt8] = Array("\"type\"".utf8)
    private static let eventValue: [UInt8] = Array("\"event\"".utf8)
    private static let colon: [UInt8] = [UInt8(ascii: ":")]
    private static let comma: [UInt8] = [UInt8(ascii: ",")]
    private static let stateChangedToken: [UInt8] = Array("\"state_changed\"".utf8)
    private static let entityIDKey: [UInt8] = Array("\"entity_id\"".utf8)

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// First index of `needle` in `bytes[from..<to]`. Scans for the needle's
    /// rarest-looking byte (its last, a quote) and checks backwards.
    @inline(__always)
    private static func find(_ needle: [UInt8], in bytes: UnsafePointer<UInt8>, from: Int, to: Int) -> Int? {
        let count = needle.count
        guard to - from >= count else { return nil }
        return needle.withUnsafeBufferPointer { n -> Int? in
            let first = n[0]
            let second = n[1]
            var i = from
            let last = to - count
            while i <= last {
                if bytes[i] == first, bytes[i + 1] == second {
                    var k = 2
                    while k < count, bytes[i + k] == n[k] { k += 1 }
                    if k == count { return i }
                }
                i += 1
            }
            return nil
        }
    }
}
