/// Writing JSON text by hand, for output lines whose key order matters to
/// people reading them (replay output, logs).
public enum JSONText {
    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        result += "\""
        return result
    }

    /// An object from already-encoded member values, in the given order.
    public static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}
