import PrintBridgeCore
import Testing

@Suite struct WhitespaceTests {
    @Test func asciiWhitespaceAtBothEndsGoesAndInnerSpaceStays() {
        #expect(" \t running now \r\n".trimmingWhitespace == "running now")
        #expect("\u{0B}\u{0C}x\u{0C}".trimmingWhitespace == "x")
        #expect("token\r\n\r\n".trimmingWhitespace == "token")
        #expect("   ".trimmingWhitespace.isEmpty)
        #expect("".trimmingWhitespace.isEmpty)
    }

    @Test func unicodeWhitespaceIsTrimmedTooAndOtherCharactersAreNot() {
        #expect("\u{00A0}printing\u{2028}".trimmingWhitespace == "printing")
        #expect("\u{3000}x\u{0085}".trimmingWhitespace == "x")
        #expect("\u{200B}x".trimmingWhitespace == "\u{200B}x")  // zero-width space is not whitespace
        #expect("é ".trimmingWhitespace == "é")
    }

    @Test func aSubstringIsTrimmedWithinItsBounds() {
        let line = "content-type:  application/json \r\n"
        let value = line[line.index(after: line.firstIndex(of: ":")!)...]
        #expect(value.trimmingWhitespace == "application/json")
    }
}
