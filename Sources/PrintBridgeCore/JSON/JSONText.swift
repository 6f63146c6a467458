/// Writing JSON text by hand, for output lines whose key order matters to
/// people reading them (replay output, logs).
public enum JSONText {
    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        // Most strings need no escape: one scan of the UTF-8 and one copy
        // (replay's and the sender's outcome lines quote several a push;
        // appending scalar by scalar was a fifth of a fan-out's main thread).
        guard text.utf8.contains(where: { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }) else {
            return "\"" + text + "\""
        }
        var bytes: [UInt8] = [0x22]
        bytes.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            switch byte {
            case 0x22: bytes += [0x5C, 0x22]
            case 0x5C: bytes += [0x5C, 0x5C]
            case 0x0A: bytes += [0x5C, UInt8(ascii: "n")]
            case 0x0D: bytes += [0x5C, UInt8(ascii: "r")]
            case 0x09: bytes += [0x5C, UInt8(ascii: "t")]
            case 0x08: bytes += [0x5C, UInt8(ascii: "b")]
            case 0x0C: bytes += [0x5C, UInt8(ascii: "f")]
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An object from already-encoded member values, in the given order.
    public static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// A parsed value written back as compact JSON, object keys sorted (stable
    /// output). Whole numbers print without a fraction, as HA writes them.
    public static func encode(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            if let int = value.intValue { return String(int) }
            return String(number)
        case .string(let text): return quoted(text)
        case .array(let elements): return "[" + elements.map(encode).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.sorted { $0.key < $1.key }.map { quoted($0.key) + ":" + encode($0.value) }
                .joined(separator: ",") + "}"
        }
    }
}
