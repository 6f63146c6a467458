/// Writing JSON text by hand, for output lines whose key order matters to
/// people reading them (replay output, logs).
public enum JSONText {
    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count + 2)
        appendQuoted(text, to: &output)
        return output
    }

    /// Appends `text` as a JSON string literal to `output`: no string of its
    /// own in between (replay's and the sender's outcome lines quote several
    /// a push; building each apart and joining them was a tenth of a
    /// fan-out's CPU, perf on `replay --send`).
    public static func appendQuoted(_ text: String, to output: inout String) {
        // Most strings need no escape: one scan of the UTF-8 and one copy.
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte == 0x22 || byte == 0x5C || byte < 0x20 { return false }
            return true
        } ?? !text.utf8.contains { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }
        guard !plain else {
            output.append("\"")
            output.append(text)
            output.append("\"")
            return
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
        output.append(String(decoding: bytes, as: UTF8.self))
    }

    /// An object from already-encoded member values, in the given order.
    public static func object(_ members: [(String, String)]) -> String {
        var output = "{"
        output.reserveCapacity(members.reduce(2) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 })
        for (index, (key, value)) in members.enumerated() {
            if index > 0 { output.append(",") }
            appendQuoted(key, to: &output)
            output.append(":")
            output.append(value)
        }
        output.append("}")
        return output
    }

    /// An object written member by member into one string, in order.
    public struct Object {
        private var output = "{"

        /// `capacity`: the expected length in bytes (the string grows past it if need be).
        public init(capacity: Int = 128) { output.reserveCapacity(capacity) }

        /// A member whose value is already JSON (a number, `true`, an object).
        public mutating func encoded(_ key: StaticString, _ value: String) {
            self.key(key)
            output.append(value)
        }

        /// A member whose value is a string, quoted here.
        public mutating func string(_ key: StaticString, _ value: String) {
            self.key(key)
            JSONText.appendQuoted(value, to: &output)
        }

        /// Keys are the program's own literals: plain ASCII, written as they are.
        private mutating func key(_ key: StaticString) {
            precondition(key.hasPointerRepresentation && key.isASCII)
            output.append(output.utf8.count > 1 ? ",\"" : "\"")
            output.append(String(decoding: UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount), as: UTF8.self))
            output.append("\":")
        }

        /// The object's text, closed.
        public consuming func text() -> String {
            output.append("}")
            return output
        }
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
