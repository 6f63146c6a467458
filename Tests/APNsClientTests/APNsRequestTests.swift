@testable import APNsClient
import CNGHTTP2
import PrintBridgeCore
import Testing

/// A push's HTTP/2 request, and its header list as nghttp2 takes it.
@Suite struct APNsRequestTests {
    /// The list `HTTP2Session.submit` hands to nghttp2 for `request`:
    /// name, value and whether it is never indexed, in order.
    func headerList(_ request: HTTP2Request) -> [(String, String, Bool)] {
        var list = HTTP2HeaderList()
        list.append(":method", "POST")
        list.append(":path", request.path)
        for header in request.headers { list.append(header.name, header.value, neverIndexed: header.neverIndexed) }
        list.append("content-length", String(request.body.count))
        return list.withList { fields, count in
            UnsafeBufferPointer(start: fields, count: count).map { field in
                #expect(field.flags & UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue) == 0,
                        "nghttp2 copies every name and value")
                return (
                    String(decoding: UnsafeBufferPointer(start: field.name, count: field.namelen), as: UTF8.self),
                    String(decoding: UnsafeBufferPointer(start: field.value, count: field.valuelen), as: UTF8.self),
                    field.flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) != 0)
            }
        }
    }

    @Test func aPushsRequestHasEveryAPNsField() {
        var push = Push(
            kind: .liveActivity, event: .update, printerPrefix: "x1c", deviceID: "d", token: String(repeating: "ab", count: 32),
            tokenKind: .activity, topic: "com.example.app.push-type.liveactivity", priority: 5, collapseID: "x1c.update",
            expiration: EpochTime(seconds: 1_800_000_000), payload: Array(#"{"aps":{}}"#.utf8), createdAt: EpochTime(seconds: 0))
        let request = APNsSender.request(for: push, apnsID: "0b1f6a2e-2c1d-4c9e-9f1e-3d4c5b6a7980", authorization: "bearer x.y.z")
        let fields = headerList(request)
        #expect(fields.map { [$0.0, $0.1] } == [
            [":method", "POST"], [":path", "/3/device/" + push.token], ["apns-id", "0b1f6a2e-2c1d-4c9e-9f1e-3d4c5b6a7980"],
            ["authorization", "bearer x.y.z"], ["apns-push-type", "liveactivity"],
            ["apns-topic", "com.example.app.push-type.liveactivity"], ["apns-priority", "5"],
            ["apns-expiration", "1800000000"], ["apns-collapse-id", "x1c.update"], ["content-length", "10"]])
        #expect(fields.filter(\.2).map(\.0) == ["apns-id"], "only the id, new every time, is never indexed")
        push.collapseID = nil
        push.expiration = EpochTime(seconds: -5)
        let plain = APNsSender.request(for: push, apnsID: "id", authorization: "b")
        #expect(!plain.headers.contains { $0.name == "apns-collapse-id" })
        #expect(plain.headers.first { $0.name == "apns-expiration" }?.value == "0")
    }

    @Test func longAndUnicodeFieldsComeOutAsTheyWentIn() {
        let pairs = (0..<40).map { ("x-field-\($0)", String(repeating: "v\($0)é", count: 60 + $0)) }
        let fields = headerList(HTTP2Request(path: "/3/device/ab", headers: pairs.map { HTTP2Header($0.0, $0.1) }, body: Array(repeating: 1, count: 1234)))
        #expect(fields.count == 2 + 40 + 1)
        #expect(zip(fields.dropFirst(2), pairs).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && !$0.2 })
        #expect(fields.last.map { [$0.0, $0.1] } == ["content-length", "1234"])
    }
}
