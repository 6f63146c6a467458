#if canImport(Glibc)
import Glibc
#endif

/// Header fields as they go on the wire (names lower-case, values as
/// bytes), all in one byte buffer: each field is a 4-byte prefix (flags,
/// name length, value length in two bytes, little-endian) and then its name
/// and value. A request's fields are written once by whoever makes the
/// request and pointed at, not copied, when nghttp2 takes them; an answer's
/// fields are appended as nghttp2 hands them over.
///
/// One allocation a request or answer, where fields as `(String, String)`
/// pairs or a `[String: String]` made an array, strings for the numbers
/// and the path, and a hash table an answer, and every string was copied
/// again into the session's scratch: the loop's `submit` went from ~10,700
/// to ~4,100 instructions a request (callgrind on
/// scripts/bench/apns_benchmark.py --callgrind-sender).
public struct HTTP2Fields: Sendable, Hashable {
    /// The encoded fields (see the type's comment).
    public private(set) var bytes: [UInt8] = []

    static let neverIndexedFlag: UInt8 = 1

    public init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Fields written by `write` straight into one new buffer of
    /// `capacity` bytes (at least each field's 4 + name + value bytes, 20
    /// for a decimal number): one allocation, each name and value copied
    /// once. How a push's request is made.
    public init(capacity: Int, writing write: (inout Writer) -> Void) {
        bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            var writer = Writer(buffer: UnsafeMutableRawBufferPointer(buffer))
            write(&writer)
            count = writer.used
        }
    }

    /// Writes fields into the buffer `init(capacity:writing:)` made.
    public struct Writer: ~Copyable {
        let buffer: UnsafeMutableRawBufferPointer
        var used = 0

        /// Adds a field whose name is a literal.
        public mutating func add(_ name: StaticString, _ value: String, neverIndexed: Bool = false) {
            var value = value  // `withUTF8` needs a mutable string; a native one is not copied
            value.withUTF8 { add(name, UnsafeRawBufferPointer($0), neverIndexed: neverIndexed) }
        }

        /// Adds a field whose value is a literal followed by `suffix` (":path" "/3/device/" + token).
        public mutating func add(_ name: StaticString, _ prefix: StaticString, _ suffix: String) {
            var suffix = suffix
            suffix.withUTF8 { suffixBytes in
                let head = UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
                let valueAt = start(name, valueLength: head.count + suffixBytes.count, neverIndexed: false)
                copy(head, to: valueAt)
                copy(UnsafeRawBufferPointer(suffixBytes), to: valueAt + head.count)
            }
        }

        /// Adds a field whose value is a whole number in decimal, without making a string.
        public mutating func add(_ name: StaticString, decimal number: Int) {
            var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: any Int's digits and sign
            withUnsafeMutableBytes(of: &digits) { buffer in
                let first = HTTP2Fields.writeDecimal(number, endingAt: buffer.count, in: buffer)
                add(name, UnsafeRawBufferPointer(rebasing: buffer[first...]), neverIndexed: false)
            }
        }

        private mutating func add(_ name: StaticString, _ value: UnsafeRawBufferPointer, neverIndexed: Bool) {
            let valueAt = start(name, valueLength: value.count, neverIndexed: neverIndexed)
            copy(UnsafeRawBufferPointer(rebasing: value.prefix(65535)), to: valueAt)
        }

        /// Writes a field's prefix and name; returns where its value goes.
        private mutating func start(_ name: StaticString, valueLength: Int, neverIndexed: Bool) -> Int {
            let nameLength = min(name.utf8CodeUnitCount, 255), valueLength = min(valueLength, 65535)
            precondition(used + 4 + nameLength + valueLength <= buffer.count, "HTTP2Fields: capacity too small")
            buffer[used] = neverIndexed ? HTTP2Fields.neverIndexedFlag : 0
            buffer[used + 1] = UInt8(nameLength)
            buffer[used + 2] = UInt8(truncatingIfNeeded: valueLength)
            buffer[used + 3] = UInt8(truncatingIfNeeded: valueLength >> 8)
            let valueAt = used + 4 + nameLength
            used = valueAt + valueLength
            copy(UnsafeRawBufferPointer(start: name.utf8Start, count: nameLength), to: valueAt - nameLength)
            return valueAt
        }

        /// Copies what fits of `source` before the field's end (`used`).
        private func copy(_ source: UnsafeRawBufferPointer, to offset: Int) {
            let count = min(source.count, used - offset)
            if count > 0, let from = source.baseAddress { (buffer.baseAddress! + offset).copyMemory(from: from, byteCount: count) }
        }
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

    /// Adds a field from raw bytes.
    public mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, neverIndexed: Bool = false) {
        let nameLength = min(name.count, 255), valueLength = min(value.count, 65535)
        startField(nameLength: nameLength, valueLength: valueLength, neverIndexed: neverIndexed)
        // Contiguous buffers: each append is one copy, not a byte-by-byte walk.
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: name[..<nameLength]))
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[..<valueLength]))
    }

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
        var position = 0
        while position + 4 <= buffer.count {
            let nameLength = Int(buffer[position + 1])
            let valueLength = Int(buffer[position + 2]) | Int(buffer[position + 3]) << 8
            let valueStart = position + 4 + nameLength
            let name = UnsafeRawBufferPointer(rebasing: buffer[(position + 4)..<valueStart])
            let value = UnsafeRawBufferPointer(rebasing: buffer[valueStart..<(valueStart + valueLength)])
            try body(name, value, buffer[position] & neverIndexedFlag != 0)
            position = valueStart + valueLength
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
        let wanted = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        var found: String?
        var known = known
        forEach { fieldName, value, _ in
            guard found == nil, Self.same(fieldName, wanted) else { return }
            found = known.withUTF8 { Self.same(value, UnsafeRawBufferPointer($0)) } ? known : String(decoding: value, as: UTF8.self)
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
