#if canImport(Glibc)
import Glibc
#endif

/// Header fields as they go on the wire (names lower-case, values as
/// bytes), all in one byte buffer: each field is a 4-byte prefix (flags,
/// name length, value length in two bytes, little-endian) and then its name
/// and value. The value kind, for a request made whole (`HTTP2Request`),
/// an answer kept (`HTTP2Response`) and the fields pushes alike share; a
/// stream's own are written in the same encoding into its slot's
/// `HTTP2FieldBuffer`, which nghttp2 points at.
///
/// Where fields as `(String, String)` pairs or a `[String: String]` made an
/// array, strings for the numbers and the path, and a hash table an answer,
/// and every string was copied again into the session's scratch, the
/// loop's `submit` went from ~10,700 to ~4,100 instructions a request
/// (callgrind on scripts/bench/apns_benchmark.py --callgrind-sender).
public struct HTTP2Fields: HTTP2FieldAppending, Sendable, Hashable {
    /// The encoded fields (see the type's comment).
    public private(set) var bytes: [UInt8] = []

    static let neverIndexedFlag: UInt8 = 1

    public init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Fields from encoded bytes (an answer's, copied out of the stream's memory).
    init(encoded: UnsafeRawBufferPointer) {
        bytes = Array(encoded)
    }

    /// Adds encoded fields (another's bytes, as they are).
    public mutating func append(encoded: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: encoded)
    }

    /// Empties the fields, keeping the memory for the next ones when asked.
    public mutating func removeAll(keepingCapacity: Bool = false) {
        bytes.removeAll(keepingCapacity: keepingCapacity)
    }

    static func bytes(of text: StaticString) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// Writes `number`'s decimal digits (and sign) to end just before
    /// `end`; returns where they start.
    static func writeDecimal(_ number: Int, endingAt end: Int, in buffer: UnsafeMutableRawBufferPointer) -> Int {
        var magnitude = number.magnitude, first = end
        repeat {
            first -= 1
            buffer[first] = 0x30 + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        if number < 0 {
            first -= 1
            buffer[first] = 0x2D
        }
        return first
    }

    /// Fields from pairs of lower-case names and values.
    public init(_ pairs: [(String, String)]) {
        bytes.reserveCapacity(pairs.reduce(0) { $0 + 4 + $1.0.utf8.count + $1.1.utf8.count })
        for (name, value) in pairs { append(name, value) }
    }

    /// Adds a field. `neverIndexed`: sent as a literal never indexed (RFC 7541 §6.2.3).
    /// Names longer than 255 bytes and values longer than 65,535 are cut
    /// (no header of ours comes near; a path that long is left out).
    public mutating func append(_ name: String, _ value: String, neverIndexed: Bool = false) {
        var name = name, value = value  // `withUTF8` needs a mutable string; a native one is not copied
        name.withUTF8 { nameBytes in
            value.withUTF8 { valueBytes in append(name: UnsafeRawBufferPointer(nameBytes), value: UnsafeRawBufferPointer(valueBytes), neverIndexed: neverIndexed) }
        }
    }

    /// Adds a field from raw bytes: its value is `value` followed by `tail`.
    public mutating func append(
        name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, _ tail: UnsafeRawBufferPointer = .init(start: nil, count: 0),
        neverIndexed: Bool = false
    ) {
        let field = Field(name: name, value: value, tail, neverIndexed: neverIndexed)
        guard field.size <= Self.assembledFieldSize else {
            startField(nameLength: field.nameLength, valueLength: field.valueLength + field.tailLength, neverIndexed: neverIndexed)
            // Contiguous buffers: each append is one copy, not a byte-by-byte walk.
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: name[..<field.nameLength]))
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[..<field.valueLength]))
            if field.tailLength > 0 { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: tail[..<field.tailLength])) }
            return
        }
        // A field of ordinary size is put together on the stack and appended
        // in one call: each `append(contentsOf:)` costs ~80 instructions
        // before its copy, and a field took four.
        withUnsafeTemporaryAllocation(byteCount: field.size, alignment: 1) { memory in
            field.write(to: memory.baseAddress!)
            bytes.append(contentsOf: UnsafeRawBufferPointer(memory))
        }
    }

    /// One field's parts, cut to what the encoding holds (names up to 255
    /// bytes, values up to 65,535), and how they are written.
    struct Field {
        let name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, tail: UnsafeRawBufferPointer
        let nameLength: Int, valueLength: Int, tailLength: Int
        let neverIndexed: Bool
        var size: Int { 4 + nameLength + valueLength + tailLength }

        init(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, _ tail: UnsafeRawBufferPointer, neverIndexed: Bool) {
            self.name = name
            self.value = value
            self.tail = tail
            nameLength = min(name.count, 255)
            valueLength = min(value.count, 65535)
            tailLength = min(tail.count, 65535 - valueLength)
            self.neverIndexed = neverIndexed
        }

        /// Writes the prefix, name, value and tail to `memory` (`size` bytes).
        func write(to memory: UnsafeMutableRawPointer) {
            let length = valueLength + tailLength
            memory.storeBytes(of: neverIndexed ? HTTP2Fields.neverIndexedFlag : 0, as: UInt8.self)
            memory.storeBytes(of: UInt8(nameLength), toByteOffset: 1, as: UInt8.self)
            memory.storeBytes(of: UInt8(truncatingIfNeeded: length), toByteOffset: 2, as: UInt8.self)
            memory.storeBytes(of: UInt8(truncatingIfNeeded: length >> 8), toByteOffset: 3, as: UInt8.self)
            if nameLength > 0 { (memory + 4).copyMemory(from: name.baseAddress!, byteCount: nameLength) }
            if valueLength > 0 { (memory + 4 + nameLength).copyMemory(from: value.baseAddress!, byteCount: valueLength) }
            if tailLength > 0 { (memory + 4 + nameLength + valueLength).copyMemory(from: tail.baseAddress!, byteCount: tailLength) }
        }
    }

    /// Fields up to this size (prefix, name and value) are put together on the stack.
    static let assembledFieldSize = 512

    /// Writes a field's 4-byte prefix. (No `reserveCapacity` here: it
    /// grows to the exact size asked, so an answer's fields, appended one by
    /// one, would be copied at every field; `init(capacity:)` reserves once.)
    private mutating func startField(nameLength: Int, valueLength: Int, neverIndexed: Bool) {
        let prefix = (neverIndexed ? UInt32(Self.neverIndexedFlag) : 0) | UInt32(nameLength) << 8 | UInt32(valueLength) << 16
        withUnsafeBytes(of: prefix.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Calls `body` with each field's name, value and whether it is never indexed, in order.
    public func forEach(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, Bool) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { buffer in try Self.forEach(in: buffer, body) }
    }

    /// Calls `body` with the encoded bytes: `forEach(in:)` walks them, and
    /// the pointers it hands out stay valid for the whole of `body`.
    func withEncoded<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBytes(body)
    }

    /// Walks encoded fields: each one's name, value and whether it is never indexed.
    static func forEach(
        in buffer: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, Bool) throws -> Void
    ) rethrows {
        // Pointer arithmetic, not slices: the walk runs for every request's
        // header list (HeaderScratch). A field that runs past the end stops it.
        guard let base = buffer.baseAddress else { return }
        var position = 0
        while position + 4 <= buffer.count {
            let nameLength = Int(base.load(fromByteOffset: position + 1, as: UInt8.self))
            let valueLength = Int(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: position + 2, as: UInt16.self)))
            let valueStart = position + 4 + nameLength
            let next = valueStart + valueLength
            guard next <= buffer.count else { return }
            try body(
                UnsafeRawBufferPointer(start: base + position + 4, count: nameLength),
                UnsafeRawBufferPointer(start: base + valueStart, count: valueLength),
                base.load(fromByteOffset: position, as: UInt8.self) & neverIndexedFlag != 0)
            position = next
        }
    }

    /// How many fields there are.
    public var count: Int {
        var count = 0
        forEach { _, _, _ in count += 1 }
        return count
    }

    /// The first field named `name` (lower-case), as text.
    public subscript(name: String) -> String? {
        var name = name
        return name.withUTF8 { wanted -> String? in
            var found: String?
            forEach { fieldName, value, _ in
                if found == nil, fieldName.elementsEqual(UnsafeRawBufferPointer(wanted)) {
                    found = String(decoding: value, as: UTF8.self)
                }
            }
            return found
        }
    }

    /// The first field named `name`, as text; `known` itself when the
    /// value is the same text (an answer's `apns-id` is the request's: no
    /// new string for it).
    public func value(_ name: StaticString, reusing known: String) -> String? {
        withEncoded { Self.value(name, in: $0, reusing: known) }
    }

    /// `value(_:reusing:)` on encoded fields.
    static func value(_ name: StaticString, in encoded: UnsafeRawBufferPointer, reusing known: String) -> String? {
        let wanted = bytes(of: name)
        var found: String?
        var known = known
        forEach(in: encoded) { fieldName, value, _ in
            guard found == nil, same(fieldName, wanted) else { return }
            found = known.withUTF8 { same(value, UnsafeRawBufferPointer($0)) } ? known : String(decoding: value, as: UTF8.self)
        }
        return found
    }

    /// Whether two byte runs are the same (`memcmp`, not a generic element walk).
    static func same(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        guard left.count == right.count else { return false }
        guard let a = left.baseAddress, let b = right.baseAddress else { return true }
        return memcmp(a, b, left.count) == 0
    }

    /// Room for `capacity` bytes of fields (an answer's, before the first is appended).
    public mutating func reserveCapacity(_ capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Every field as name → value (a later field of the same name wins).
    public var dictionary: [String: String] {
        var fields: [String: String] = [:]
        forEach { name, value, _ in fields[String(decoding: name, as: UTF8.self)] = String(decoding: value, as: UTF8.self) }
        return fields
    }
}
