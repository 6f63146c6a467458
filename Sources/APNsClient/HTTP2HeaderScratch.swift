import CNGHTTP2

/// One request's header fields as nghttp2 takes them, in memory kept from
/// one request to the next: the names and values side by side in one
/// buffer, and the `nghttp2_nv` list pointing into it. nghttp2 copies both
/// in `nghttp2_submit_request`, so the next request may reuse them.
/// Used only on the client's loop thread.
final class HeaderScratch {
    private struct Field {
        var name: Int, nameLength: Int, value: Int, valueLength: Int, flags: UInt8
    }

    private var bytes: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0
    private var fields: [Field] = []
    private var list: UnsafeMutablePointer<nghttp2_nv>
    private var listCapacity: Int

    init() {
        capacity = 4096
        bytes = .allocate(byteCount: capacity, alignment: 8)
        listCapacity = 16
        list = .allocate(capacity: listCapacity)
        fields.reserveCapacity(listCapacity)
    }

    deinit {
        bytes.deallocate()
        list.deallocate()
    }

    /// Forgets the last request's fields.
    func reset() {
        used = 0
        fields.removeAll(keepingCapacity: true)
    }

    /// Adds a field; `neverIndexed`: sent as a literal never indexed (RFC 7541 §6.2.3).
    func add(_ name: String, _ value: String, neverIndexed: Bool = false) {
        let nameAt = copy(name), valueAt = copy(value)
        let flags = neverIndexed ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE
        fields.append(Field(
            name: nameAt, nameLength: name.utf8.count, value: valueAt, valueLength: value.utf8.count,
            flags: UInt8(flags.rawValue)))
    }

    /// Calls `body` with the fields as nghttp2's list and their count.
    func withFields(_ body: (UnsafePointer<nghttp2_nv>, Int) -> Int32) -> Int32 {
        if fields.count > listCapacity {
            list.deallocate()
            listCapacity = fields.count
            list = .allocate(capacity: listCapacity)
        }
        let base = bytes.assumingMemoryBound(to: UInt8.self)
        for (index, field) in fields.enumerated() {
            list[index] = nghttp2_nv(
                name: base + field.name, value: base + field.value, namelen: field.nameLength,
                valuelen: field.valueLength, flags: field.flags)
        }
        return body(list, fields.count)
    }

    /// Copies `text`'s UTF-8 to the end of the buffer; returns where it starts.
    private func copy(_ text: String) -> Int {
        var text = text  // `withUTF8` may make a bridged string contiguous; a native one is not copied
        return text.withUTF8 { utf8 in
            if used + utf8.count > capacity {
                let larger = UnsafeMutableRawPointer.allocate(byteCount: max(capacity * 2, used + utf8.count), alignment: 8)
                larger.copyMemory(from: bytes, byteCount: used)
                bytes.deallocate()
                bytes = larger
                capacity = max(capacity * 2, used + utf8.count)
            }
            let start = used
            if let source = utf8.baseAddress { (bytes + used).copyMemory(from: source, byteCount: utf8.count) }
            used += utf8.count
            return start
        }
    }
}
