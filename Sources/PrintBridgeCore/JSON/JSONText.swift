/// Writing JSON text by hand, for output lines whose key order matters to
/// people reading them (replay output, logs).
public enum JSONText {
    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        appendQuoted(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal to `output`, as UTF-8.
    ///
    /// Text is written as bytes, not `String`s: replay's and the sender's
    /// outcome lines quote seven strings a push, and joining `String`s cost
    /// ~340 instructions an append (callgrind on `replay --send`: 30,000 a
    /// line, a fifth of a fan-out's instructions); a byte array appends a
    /// native string's UTF-8 with one copy.
    public static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        // Most strings need no escape: one scan of the UTF-8 and one copy.
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte == 0x22 || byte == 0x5C || byte < 0x20 { return false }
            return true
        } ?? !text.utf8.contains { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }
        output.append(0x22)
        guard !plain else {
            output.append(contentsOf: text.utf8)
            output.append(0x22)
            return
        }
        for byte in text.utf8 {
            switch byte {
            case 0x22: output += [0x5C, 0x22]
            case 0x5C: output += [0x5C, 0x5C]
            case 0x0A: output += [0x5C, UInt8(ascii: "n")]
            case 0x0D: output += [0x5C, UInt8(ascii: "r")]
            case 0x09: output += [0x5C, UInt8(ascii: "t")]
            case 0x08: output += [0x5C, UInt8(ascii: "b")]
            case 0x0C: output += [0x5C, UInt8(ascii: "f")]
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: output.append(byte)
            }
        }
        output.append(0x22)
    }

    /// An object from already-encoded member values, in the given order.
    public static func object(_ members: [(String, String)]) -> String {
        var output: [UInt8] = [0x7B]
        output.reserveCapacity(members.reduce(2) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 })
        for (key, value) in members {
            if output.count > 1 { output.append(0x2C) }
            appendQuoted(key, to: &output)
            output.append(0x3A)
            output.append(contentsOf: value.utf8)
        }
        output.append(0x7D)
        return String(decoding: output, as: UTF8.self)
    }

    /// An object written member by member into one buffer, in order.
    public struct Object {
        private var output: [UInt8] = [0x7B]

        /// `capacity`: the expected length in bytes (the buffer grows past it if need be).
        public init(capacity: Int = 128) { output.reserveCapacity(capacity) }

        /// A member whose value is already JSON (a number, `true`, an object).
        public mutating func encoded(_ key: StaticString, _ value: String) {
            self.key(key)
            output.append(contentsOf: value.utf8)
        }

        /// A member whose value is a string, quoted here.
        public mutating func string(_ key: StaticString, _ value: String) {
            self.key(key)
            JSONText.appendQuoted(value, to: &output)
        }

        /// Keys are the program's own literals, written as they are: plain
        /// ASCII with nothing to escape.
        private mutating func key(_ key: StaticString) {
            precondition(key.hasPointerRepresentation && key.isASCII)
            if output.count > 1 { output.append(0x2C) }
            output.append(0x22)
            output.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
            output.append(0x22)
            output.append(0x3A)
        }

        /// The object's text, closed.
        public consuming func text() -> String {
            output.append(0x7D)
            return String(decoding: output, as: UTF8.self)
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
