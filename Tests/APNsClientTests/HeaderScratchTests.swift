@testable import APNsClient
import CNGHTTP2
import PrintBridgeCore
import Testing

/// The header list handed to nghttp2: the fixed pseudo-headers, the
/// request's own fields as they were written, `content-length` last (as the
/// session writes it), from one request to the next in the same memory;
/// every entry pointed at, not copied, by nghttp2.
@Suite struct HeaderScratchTests {
    func read(_ scratch: HeaderScratch, _ request: HTTP2Request) -> [(String, String, Bool)] {
        var fields = request.fields
        HTTP2Session.appendContentLength(request.body.count, to: &fields)
        var read: [(String, String, Bool)] = []
        let kept = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
        _ = fields.withEncoded { encoded in scratch.withFields(of: encoded) { list, count in
            for field in UnsafeBufferPointer(start: list, count: count) {
                #expect(field.flags & kept == kept, "nghttp2 keeps the pointers: nothing is copied")
                read.append((
                    String(decoding: UnsafeBufferPointer(start: field.name, count: field.namelen), as: UTF8.self),
                    String(decoding: UnsafeBufferPointer(start: field.value, count: field.valuelen), as: UTF8.self),
                    field.flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) != 0))
            }
            return 0
        } }
        return read
    }

    @Test func fieldsComeOutAsTheyWentInPastTheFirstList() {
        let scratch = HeaderScratch(authority: "api.push.apple.com")
        // More fields than the first list holds, and long values.
        let pairs = (0..<40).map { ("x-field-\($0)", String(repeating: "v\($0)é", count: 60 + $0)) }
        var fields = HTTP2Fields([(":path", "/3/device/ab")] + pairs)
        fields.append("apns-id", "", neverIndexed: true)
        let fieldsRead = read(scratch, HTTP2Request(fields: fields, body: Array(repeating: 1, count: 1234)))
        #expect(fieldsRead.count == 3 + 1 + 40 + 1 + 1)
        #expect(fieldsRead.prefix(4).map { [$0.0, $0.1] } == [
            [":method", "POST"], [":scheme", "https"], [":authority", "api.push.apple.com"], [":path", "/3/device/ab"]])
        #expect(zip(fieldsRead.dropFirst(4), pairs).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && !$0.2 })
        #expect(fieldsRead.dropLast().last.map { [$0.0, $0.1] } == ["apns-id", ""] && fieldsRead.dropLast().last?.2 == true)
        #expect(fieldsRead.last.map { [$0.0, $0.1] } == ["content-length", "1234"])
        // The next request starts afresh in the same memory.
        let next = read(scratch, HTTP2Request(path: "/3/device/cd", headers: [], body: []))
        #expect(next.map { $0.0 } == [":method", ":scheme", ":authority", ":path", "content-length"])
        #expect(next.map { $0.1 }.suffix(2) == ["/3/device/cd", "0"])
    }

    @Test func aPushsRequestHasEveryAPNsField() {
        var push = Push(
            kind: .liveActivity, event: .update, printerPrefix: "x1c", deviceID: "d", token: String(repeating: "ab", count: 32),
            tokenKind: .activity, topic: "com.example.app.push-type.liveactivity", priority: 5, collapseID: "x1c.update",
            expiration: EpochTime(seconds: 1_800_000_000), payload: Array(#"{"aps":{}}"#.utf8), createdAt: EpochTime(seconds: 0))
        let request = APNsSender.request(for: push, apnsID: "0b1f6a2e-2c1d-4c9e-9f1e-3d4c5b6a7980", authorization: "bearer x.y.z")
        let fields = read(HeaderScratch(authority: "localhost:2197"), request)
        #expect(fields.map { [$0.0, $0.1] } == [
            [":method", "POST"], [":scheme", "https"], [":authority", "localhost:2197"],
            [":path", "/3/device/" + push.token], ["apns-id", "0b1f6a2e-2c1d-4c9e-9f1e-3d4c5b6a7980"],
            ["authorization", "bearer x.y.z"], ["apns-push-type", "liveactivity"],
            ["apns-topic", "com.example.app.push-type.liveactivity"], ["apns-priority", "5"],
            ["apns-expiration", "1800000000"], ["apns-collapse-id", "x1c.update"], ["content-length", "10"]])
        #expect(fields.filter(\.2).map(\.0) == ["apns-id"], "only the id, new every time, is never indexed")
        push.collapseID = nil
        push.expiration = EpochTime(seconds: -5)
        let plain = read(HeaderScratch(authority: "a"), APNsSender.request(for: push, apnsID: "id", authorization: "b"))
        #expect(!plain.contains { $0.0 == "apns-collapse-id" })
        #expect(plain.first { $0.0 == "apns-expiration" }?.1 == "0")
    }
}
