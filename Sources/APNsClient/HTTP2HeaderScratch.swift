import CNGHTTP2

/// A request's header list as nghttp2 takes it (`nghttp2_nv`), in memory
/// kept from one request to the next: ":method", ":scheme" and
/// ":authority" (the same for every request, written once and kept for
/// the session), then the request's own fields, pointed at where
/// `HTTP2Fields` holds them (`content-length` among them, last).
///
/// Every entry is marked NO_COPY_NAME and NO_COPY_VALUE: nghttp2 keeps the
/// pointers instead of copying (and lower-casing) each name and value, so
/// the bytes must stay as they are until the request's HEADERS frame has
/// gone out or been dropped. The fixed fields live as long as the scratch
/// (the session); a request's own live in its stream's slot, which is not
/// reused before then (`HTTP2StreamTable`). The copy (lib/nghttp2_frame.c,
/// `nghttp2_nv_array_copy`: a memcpy of each name and value and
/// `nghttp2_downcase` of each name unless NO_COPY is set) had cost ~1,700
/// instructions a request in `nghttp2_submit_request` (callgrind on
/// scripts/bench/apns_benchmark.py --callgrind-sender). Used only on the
/// client's loop thread.
final class HeaderScratch {
    /// The fixed fields' names and values.
    private let fixed: UnsafeMutableRawBufferPointer
    private let fixedFields: [nghttp2_nv]
    private var list: UnsafeMutablePointer<nghttp2_nv>
    private var listCapacity: Int

    private static let kept = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
    private static let keptNeverIndexed = kept | UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)

    init(authority: String) {
        let pairs = [(":method", "POST"), (":scheme", "https"), (":authority", authority)]
        let size = pairs.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count }
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
                flags: Self.kept))
        }
        fixedFields = fields
        listCapacity = 16
        list = .allocate(capacity: listCapacity)
    }

    deinit {
        fixed.deallocate()
        list.deallocate()
    }

    /// Calls `body` with the whole header list of a request whose encoded
    /// fields (":path" first, `content-length` written among them) are
    /// `encoded`, and its count. nghttp2 may keep pointers into them (the
    /// type's comment says until when).
    func withFields(of encoded: UnsafeRawBufferPointer, _ body: (UnsafePointer<nghttp2_nv>, Int) -> Int32) -> Int32 {
        // Every field takes at least its 4-byte prefix: room enough without
        // walking the fields twice.
        let needed = fixedFields.count + encoded.count / 4
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
        HTTP2Fields.forEach(in: encoded) { name, value, neverIndexed in
            list[count] = nghttp2_nv(
                name: UnsafeMutablePointer(mutating: name.baseAddress?.assumingMemoryBound(to: UInt8.self)),
                value: UnsafeMutablePointer(mutating: value.baseAddress?.assumingMemoryBound(to: UInt8.self)),
                namelen: name.count, valuelen: value.count,
                flags: neverIndexed ? Self.keptNeverIndexed : Self.kept)
            count += 1
        }
        return body(list, count)
    }
}
