/// Where header fields can be written, encoded as `HTTP2Fields` holds
/// them: `HTTP2Fields` (a value) and `HTTP2FieldBuffer` (a stream slot's
/// own memory). Each field is one prefix and one copy of its parts.
public protocol HTTP2FieldAppending: ~Copyable {
    /// Adds a field from raw bytes: its value is `value` followed by `tail`.
    /// `neverIndexed`: sent as a literal never indexed (RFC 7541 §6.2.3).
    /// Names longer than 255 bytes and values longer than 65,535 are cut.
    mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, _ tail: UnsafeRawBufferPointer, neverIndexed: Bool)

    /// Adds encoded fields as they are (another's bytes).
    mutating func append(encoded: UnsafeRawBufferPointer)
}

extension HTTP2FieldAppending where Self: ~Copyable {
    /// Adds a field from raw bytes.
    public mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, neverIndexed: Bool = false) {
        append(name: name, value: value, UnsafeRawBufferPointer(start: nil, count: 0), neverIndexed: neverIndexed)
    }

    /// Adds a field whose name is a literal.
    public mutating func append(_ name: StaticString, _ value: String, neverIndexed: Bool = false) {
        var value = value  // `withUTF8` needs a mutable string; a native one is not copied
        value.withUTF8 { append(name: HTTP2Fields.bytes(of: name), value: UnsafeRawBufferPointer($0), neverIndexed: neverIndexed) }
    }

    /// Adds a field whose value is a literal followed by `suffix` (":path": "/3/device/" and a token).
    public mutating func append(_ name: StaticString, _ prefix: StaticString, _ suffix: String) {
        var suffix = suffix
        suffix.withUTF8 {
            append(name: HTTP2Fields.bytes(of: name), value: HTTP2Fields.bytes(of: prefix), UnsafeRawBufferPointer($0), neverIndexed: false)
        }
    }

    /// Adds a field whose value is a whole number in decimal, without making a string.
    public mutating func append(_ name: StaticString, decimal number: Int) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: any Int's digits and sign
        withUnsafeMutableBytes(of: &digits) { buffer in
            let first = HTTP2Fields.writeDecimal(number, endingAt: buffer.count, in: buffer)
            append(name: HTTP2Fields.bytes(of: name), value: UnsafeRawBufferPointer(rebasing: buffer[first...]))
        }
    }

    /// Adds every field of `other`, as they are (one copy of its bytes).
    public mutating func append(contentsOf other: HTTP2Fields) {
        other.withEncoded { append(encoded: $0) }
    }
}

/// Encoded header fields in memory of their own, written in place and
/// reused: a stream slot's request and answer (`HTTP2StreamTable`). Where
/// an `HTTP2Fields` in the slot paid the array's checks and calls at every
/// append (~900 instructions a request, callgrind on
/// scripts/bench/apns_benchmark.py --callgrind-sender), a field here is a
/// capacity check, its prefix and its copies. The memory stays put until
/// the buffer grows or goes: nghttp2 points into a request's fields until
/// its HEADERS went out (HeaderScratch), and nothing is appended to them
/// before then.
public struct HTTP2FieldBuffer: HTTP2FieldAppending, ~Copyable {
    private var memory: UnsafeMutableRawPointer?
    private(set) var capacity = 0
    /// Bytes written.
    public private(set) var count = 0

    public init() {}

    deinit { memory?.deallocate() }

    /// The encoded fields, valid until the next change.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: memory, count: count) }

    /// Empties the fields, keeping the memory.
    public mutating func removeAll() { count = 0 }

    /// Empties the fields and lets the memory go if it is more than `kept` bytes.
    mutating func removeAll(keepingAtMost kept: Int) {
        count = 0
        if capacity > kept {
            memory?.deallocate()
            memory = nil
            capacity = 0
        }
    }

    public mutating func append(
        name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, _ tail: UnsafeRawBufferPointer, neverIndexed: Bool
    ) {
        let field = HTTP2Fields.Field(name: name, value: value, tail, neverIndexed: neverIndexed)
        reserve(field.size)
        field.write(to: memory! + count)
        count += field.size
    }

    public mutating func append(encoded: UnsafeRawBufferPointer) {
        guard encoded.count > 0 else { return }
        reserve(encoded.count)
        (memory! + count).copyMemory(from: encoded.baseAddress!, byteCount: encoded.count)
        count += encoded.count
    }

    /// Room for `more` bytes after `count`: the memory doubles (at least 256 bytes).
    private mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        let larger = max(256, capacity * 2, count + more)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 8)
        if let memory {
            grown.copyMemory(from: memory, byteCount: count)
            memory.deallocate()
        }
        memory = grown
        capacity = larger
    }
}
