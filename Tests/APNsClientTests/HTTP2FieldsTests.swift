@testable import APNsClient
import Testing

/// Header fields in one buffer: what goes in comes out, however written.
@Suite struct HTTP2FieldsTests {
    func pairs(_ fields: HTTP2Fields) -> [[String]] {
        var pairs: [[String]] = []
        fields.forEach { name, value, _ in
            pairs.append([String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)])
        }
        return pairs
    }

    @Test func literalNamesAndStringsGiveTheSameFields() {
        var written = HTTP2Fields(capacity: 16)
        written.append(":path", "/3/device/", "abc")
        written.append("x-text", "héllo")
        written.append("x-zero", decimal: 0)
        written.append("x-big", decimal: Int.max)
        written.append("x-most-negative", decimal: Int.min)
        written.append("apns-id", "id-1", neverIndexed: true)
        var appended = HTTP2Fields()
        for (name, value) in [(":path", "/3/device/abc"), ("x-text", "héllo"), ("x-zero", "0"),
                              ("x-big", String(Int.max)), ("x-most-negative", String(Int.min))] {
            appended.append(name, value)
        }
        appended.append("apns-id", "id-1", neverIndexed: true)
        #expect(written == appended)
        #expect(written.count == 6)
        #expect(pairs(written)[4] == ["x-most-negative", "-9223372036854775808"])
        var flags: [Bool] = []
        written.forEach { _, _, neverIndexed in flags.append(neverIndexed) }
        #expect(flags == [false, false, false, false, false, true])
    }

    @Test func aValueIsFoundAndAKnownOneIsReused() {
        let known = "0b1f6a2e-2c1d-4c9e-9f1e-3d4c5b6a7980"
        var fields = HTTP2Fields()
        fields.append("apns-id", known)
        fields.append("apns-id", "second")
        #expect(fields.value("apns-id", reusing: known) == known)
        #expect(fields.value("apns-id", reusing: "other") == known, "the first field, as text")
        #expect(fields.value("apns-unique-id", reusing: known) == nil)
        #expect(fields["apns-id"] == known)
        #expect(fields.dictionary == ["apns-id": "second"], "a later field wins in the dictionary")
        #expect(HTTP2Response(status: 200, fields: fields, body: []).headers["apns-id"] == "second")
    }

    @Test func overLongNamesAndValuesAreCutNotOverrun() {
        var fields = HTTP2Fields()
        fields.append(String(repeating: "n", count: 300), String(repeating: "v", count: 70_000))
        fields.append("next", "ok")
        let read = pairs(fields)
        #expect(read.count == 2)
        #expect(read[0][0].count == 255 && read[0][1].count == 65535)
        #expect(read[1] == ["next", "ok"])
        var written = HTTP2Fields()
        written.append("x", "/", String(repeating: "v", count: 70_000))
        written.append("next", "ok")
        #expect(pairs(written).map { $0[1].count } == [65535, 2], "a value and its tail are cut together")
    }

    @Test func fieldsEmptiedKeepTheirRoomAndTakeOthersWhole() {
        var fields = HTTP2Fields(capacity: 256)
        fields.append("a", "1")
        let room = fields.bytes.capacity
        fields.removeAll(keepingCapacity: true)
        #expect(fields.count == 0 && fields.bytes.capacity == room)
        var shared = HTTP2Fields()
        shared.append("apns-topic", "com.example")
        shared.append("apns-priority", decimal: 10)
        fields.append("apns-id", "x", neverIndexed: true)
        fields.append(contentsOf: shared)
        #expect(pairs(fields) == [["apns-id", "x"], ["apns-topic", "com.example"], ["apns-priority", "10"]])
        #expect(fields.value("apns-topic", reusing: "") == "com.example")
    }
}
