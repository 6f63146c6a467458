@testable import APNsClient
import CNGHTTP2
import Testing

/// The header fields handed to nghttp2 come out as they went in, however
/// many and however long, from one request to the next.
@Suite struct HeaderScratchTests {
    func read(_ scratch: HeaderScratch) -> [(String, String, Bool)] {
        var read: [(String, String, Bool)] = []
        _ = scratch.withFields { list, count in
            for field in UnsafeBufferPointer(start: list, count: count) {
                read.append((
                    String(decoding: UnsafeBufferPointer(start: field.name, count: field.namelen), as: UTF8.self),
                    String(decoding: UnsafeBufferPointer(start: field.value, count: field.valuelen), as: UTF8.self),
                    field.flags == UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)))
            }
            return 0
        }
        return read
    }

    @Test func fieldsComeOutAsTheyWentInPastTheFirstBuffers() {
        let scratch = HeaderScratch()
        // More fields than the first list holds and more bytes than the first buffer.
        let fields = (0..<40).map { ("x-field-\($0)", String(repeating: "v\($0)é", count: 60 + $0)) }
        scratch.add(":method", "POST")
        for (name, value) in fields { scratch.add(name, value) }
        scratch.add("apns-id", "", neverIndexed: true)
        let fieldsRead = read(scratch)
        #expect(fieldsRead.count == 42)
        #expect(fieldsRead.first.map { [$0.0, $0.1] } == [":method", "POST"])
        #expect(zip(fieldsRead.dropFirst(), fields).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && !$0.2 })
        #expect(fieldsRead.last.map { [$0.0, $0.1] } == ["apns-id", ""] && fieldsRead.last?.2 == true)
        // The next request starts afresh in the same memory.
        scratch.reset()
        scratch.add(":path", "/3/device/ab")
        #expect(read(scratch).map { $0.0 } == [":path"])
        #expect(read(scratch).map { $0.1 } == ["/3/device/ab"])
    }
}
