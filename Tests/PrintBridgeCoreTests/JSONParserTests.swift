import Testing
@testable import PrintBridgeCore

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(#"{"a":[1,-2.5,3e2,true,false,null],"b":{"c":"d"},"e":""}"#)
        #expect(value["a"] == .array([.number(1), .number(-2.5), .number(300), .bool(true), .bool(false), .null]))
        #expect(value["b"]?["c"] == .string("d"))
        #expect(value["e"] == .string(""))
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONParser.parse(#"["a\"b\\c\/d\n\t\u00e9\ud83c\udf89", "Gr\u00fc\u00dfe 🎉"]"#)
        #expect(value.arrayValue?[0] == .string("a\"b\\c/d\n\té🎉"))
        #expect(value.arrayValue?[1] == .string("Grüße 🎉"))
    }

    @Test(arguments: [
        ("", "unexpected end"), ("{", "unexpected end"), (#"{"a":1,}"#, "expected a string key"),
        ("[1 2]", "expected ',' or ']'"), (#""abc"#, "unterminated string"), ("01", "unexpected data"),
        ("1.", "digit after '.'"), ("NaN", "unexpected character"), (#""\ud800""#, "unpaired surrogate"),
        ("{\"a\":\"\u{01}\"}", "control character"), ("nul", "expected null"), ("this is not JSON", "expected true"),
        ("1e999", "out of range"),
    ])
    func rejectsMalformedInputWithAReason(input: String, reason: String) {
        #expect {
            _ = try JSONParser.parse(input)
        } throws: { error in
            (error as? JSONParser.Error)?.reason.contains(reason) == true
        }
    }

    @Test func reportsTheByteOffsetOfTheProblem() {
        #expect(throws: JSONParser.Error(offset: 7, reason: "expected ',' or '}' in object")) {
            _ = try JSONParser.parse(#"{"a":1 "b":2}"#)
        }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParser.Error.self) { _ = try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func boundsNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParser.Error.self) { _ = try JSONParser.parse(deep) }
    }

    @Test func skippedMembersAreCheckedButNotKept() throws {
        let bytes = Array(#"{"keep":1,"old_state":{"x":[1,{"y":"\"}"}]},"context":{"id":"z"}}"#.utf8)
        let value = try bytes.withUnsafeBytes { try JSONParser.parse($0, skippingKeys: ["old_state", "context"]) }
        #expect(value == .object(["keep": .number(1)]))
        let broken = Array(#"{"keep":1,"old_state":{"x":[1,}}"#.utf8)
        #expect(throws: JSONParser.Error.self) {
            _ = try broken.withUnsafeBytes { try JSONParser.parse($0, skippingKeys: ["old_state"]) }
        }
    }

    @Test func quotesTextForHandWrittenJSON() throws {
        let text = "a\"b\\c\n\u{01}é"
        #expect(try JSONParser.parse(JSONText.quoted(text)) == .string(text))
        #expect(JSONText.object([("x", "1"), ("y", JSONText.quoted("z"))]) == #"{"x":1,"y":"z"}"#)
        // The exact text, escapes and all, and plain text as it is.
        #expect(JSONText.quoted(text) == #""a\"b\\c\n\u0001é""#)
        #expect(JSONText.quoted("Print Complete! 🎉 benchy.3mf") == "\"Print Complete! 🎉 benchy.3mf\"")
        #expect(JSONText.quoted("") == "\"\"")
        #expect(JSONText.quoted("\u{8}\u{c}\r\t\u{1f}") == #""\b\f\r\t\u001f""#)
        for byte in 0..<0x20 {
            let control = String(UnicodeScalar(UInt8(byte)))
            #expect(try JSONParser.parse(JSONText.quoted("x" + control)) == .string("x" + control))
        }
    }
}

@Suite struct JSONTextTests {
    @Test func encodeRoundTripsWithSortedKeys() throws {
        let text = #"{"b":[1,2.5,-3,true,null,"x\"y"],"a":{"z":{},"y":[]}}"#
        let encoded = JSONText.encode(try JSONParser.parse(text))
        #expect(encoded == #"{"a":{"y":[],"z":{}},"b":[1,2.5,-3,true,null,"x\"y"]}"#)
        #expect(try JSONParser.parse(encoded) == JSONParser.parse(text))
    }
}
