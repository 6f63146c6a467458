import CNGHTTP2

/// A request's header list as nghttp2 takes it (`nghttp2_nv`), in memory
/// kept from one request to the next: ":method", ":scheme" and
/// ":authority" (the same for every request, written once), then the
/// request's own fields, pointed at where `HTTP2Fields` holds them, then
/// `content-length`. nghttp2 copies names and values in
/// `nghttp2_submit_request`, so nothing here needs to outlive the call.
/// Used only on the client's loop thread.
final class HeaderScratch {
    /// The fixed fields' names and values, and the content length's digits.
    private let fixed: UnsafeMutableRawBufferPointer
    private let fixedFields: [nghttp2_nv]
    private let lengthName: UnsafeMutablePointer<UInt8>
    private let lengthDigits: UnsafeMutablePointer<UInt8>
    private var list: UnsafeMutablePointer<nghttp2_nv>
    private var listCapacity: Int

    init(authority: String) {
        let pairs = [(":method", "POST"), (":scheme", "https"), (":authority", authority), ("content-length", "")]
        let size = pairs.reduce(20) { $0 + $1.0.utf8.count + $1.1.utf8.count }
        fixed = .allocate(byteCount: size, alignment: 8)
        var used = 0
        var fields: [nghttp2_nv] = []
        let base = fixed.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for (name, value) in pairs {
            let nameAt = used
            fixed.baseAddress!.advanced(by: used).copyMemory(from: Array(name.utf8), byteCount: name.utf8.count)
            used += name.utf8.count
            let valueAt = used
            fixed.baseAddress!.advanced(by: used).copyMemory(from: Array(value.utf8), byteCount: value.utf8.count)
            used += value.utf8.count
            fields.append(nghttp2_nv(
                name: base + nameAt, value: base + valueAt, namelen: name.utf8.count, valuelen: value.utf8.count,
                flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
        }
        lengthName = fields.removeLast().name
        lengthDigits = base + used  // 20 bytes: any Int's digits
        fixedFields = fields
        listCapacity = 16
        list = .allocate(capacity: listCapacity)
    }

    deinit {
        fixed.deallocate()
        list.deallocate()
    }

    /// Calls `body` with `request`'s whole header list and its count.
    func withFields(of request: HTTP2Request, _ body: (UnsafePointer<nghttp2_nv>, Int) -> Int32) -> Int32 {
        withFields(of: request.fields, bodyCount: request.body.count, body)
    }

    /// Calls `body` with the whole header list of a request with `fields`
    /// and a body of `bodyCount` bytes, and its count.
    func withFields(of fields: HTTP2Fields, bodyCount: Int, _ body: (UnsafePointer<nghttp2_nv>, Int) -> Int32) -> Int32 {
        // Every field takes at least its 4-byte prefix: room enough without
        // walking the fields twice.
        let needed = fixedFields.count + fields.bytes.count / 4 + 1
        if needed > listCapacity {
            list.deallocate()
            listCapacity = needed
            list = .allocate(capacity: listCapacity)
        }
        var count = 0
        for field in fixedFields {
            list[count] = field
            count += 1
        }
        return fields.withEncoded { encoded in
            // Pointers into the fields' own buffer, valid for this closure.
            HTTP2Fields.forEach(in: encoded) { name, value, neverIndexed in
                list[count] = nghttp2_nv(
                    name: UnsafeMutablePointer(mutating: name.baseAddress?.assumingMemoryBound(to: UInt8.self)),
                    value: UnsafeMutablePointer(mutating: value.baseAddress?.assumingMemoryBound(to: UInt8.self)),
                    namelen: name.count, valuelen: value.count,
                    flags: UInt8((neverIndexed ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE).rawValue))
                count += 1
            }
            let start = HTTP2Fields.writeDecimal(
                bodyCount, endingAt: 20, in: UnsafeMutableRawBufferPointer(start: lengthDigits, count: 20))
            list[count] = nghttp2_nv(
                name: lengthName, value: lengthDigits + start, namelen: 14, valuelen: 20 - start,
                flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            count += 1
            return body(list, count)
        }
    }
}
