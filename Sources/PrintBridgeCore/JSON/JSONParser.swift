/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// Errors carry the byte offset and a short reason, so a bad line in a
/// recorded file can be reported precisely. Nesting is bounded so a hostile
/// message cannot exhaust the stack.
public struct JSONParser {
    public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    public static let maximumDepth = 512

    /// Parses a document. Members named in `skippingKeys` (at any depth) are
    /// checked for well-formedness but not kept: HA messages carry large
    /// parts (`old_state`, `context`) that PrintBridge never reads.
    public static func parse(_ bytes: UnsafeRawBufferPointer, skippingKeys: Set<String> = []) throws(Error) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skippedKeys = skippingKeys
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else {
            throw parser.error("unexpected data after the JSON value")
        }
        return value
    }

    public static func parse(_ bytes: [UInt8]) throws(Error) -> JSONValue {
        let result: Result<JSONValue, Error> = bytes.withUnsafeBytes { buffer in
            do throws(Error) { return .success(try parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    public static func parse(_ text: String) throws(Error) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var skippedKeys: Set<String> = []

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private func error(_ reason: String) -> Error {
        Error(offset: index, reason: reason)
    }

    private var current: UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(Error) -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character '\(Unicode.Scalar(byte))'")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Error) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("not JSON (expected \(literal))") }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw error("not JSON (expected \(literal))")
        }
        index += count
    }

    private mutating func parseObject(depth: Int) throws(Error) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                throw error(current == nil ? "unexpected end of input in object" : "expected a string key")
            }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after key") }
            index += 1
            skipWhitespace()
            // A key seen twice: the first value counts (the second is only
            // checked).
            if (!skippedKeys.isEmpty && skippedKeys.contains(key)) || members[key] != nil {
                try skipValue(depth: depth + 1)
            } else {
                members[key] = try parseValue(depth: depth + 1)
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            case nil: throw error("unexpected end of input in object")
            default: throw error("expected ',' or '}' in object")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(Error) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            case nil: throw error("unexpected end of input in array")
            default: throw error("expected ',' or ']' in array")
            }
        }
    }

    private mutating func parseString() throws(Error) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try validatedString(slice, at: start)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in string") }
            index += 1
        }
        guard index < bytes.count else { throw error("unterminated string") }
        var scratch = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                let result: Result<String, Error> = scratch.withUnsafeBytes { buffer in
                    do throws(Error) { return .success(try validatedString(buffer, at: start)) } catch {
                        return .failure(error)
                    }
                }
                return try result.get()
            case UInt8(ascii: "\\"):
                index += 1
                try appendEscape(into: &scratch)
            case 0..<0x20:
                throw error("control character in string")
            default:
                scratch.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private func validatedString(_ buffer: UnsafeRawBufferPointer, at offset: Int) throws(Error) -> String {
        // ASCII needs no validation, and most of what HA sends is ASCII.
        if Self.isASCII(buffer) { return String(decoding: buffer, as: UTF8.self) }
        guard let text = String(validating: buffer, as: UTF8.self) else {
            throw Error(offset: offset, reason: "string is not valid UTF-8")
        }
        return text
    }

    @inline(__always)
    private static func isASCII(_ buffer: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let count = buffer.count
        if let base = buffer.baseAddress {
            while i + 8 <= count {
                if base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
                i += 8
            }
        }
        while i < count {
            if buffer[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// Steps over one value, checking it is well-formed JSON, without building it.
    private mutating func skipValue(depth: Int) throws(Error) {
        guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            if current == UInt8(ascii: "}") { index += 1; return }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
                try skipString()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':' after key") }
                index += 1
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"): index += 1; return
                case nil: throw error("unexpected end of input in object")
                default: throw error("expected ',' or '}' in object")
                }
            }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if current == UInt8(ascii: "]") { index += 1; return }
            while true {
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"): index += 1; return
                case nil: throw error("unexpected end of input in array")
                default: throw error("expected ',' or ']' in array")
                }
            }
        case UInt8(ascii: "\""):
            try skipString()
        default:
            _ = try parseValue(depth: depth)  // scalars are cheap to read
        }
    }

    private mutating func skipString() throws(Error) {
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { index += 1; return }
            if byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte < 0x20 { throw error("control character in string") }
            index += 1
        }
        throw error("unterminated string")
    }

    private mutating func appendEscape(into scratch: inout [UInt8]) throws(Error) {
        guard let byte = current else { throw error("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate") }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("unpaired surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid code point") }
            scratch.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw error("invalid escape '\\\(Unicode.Scalar(byte))'")
        }
    }

    private mutating func parseHex4() throws(Error) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(Error) -> Double {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw error("expected a digit")
        }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let digit = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else {
                throw error("expected a digit after '.'")
            }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else {
                throw error("expected a digit in exponent")
            }
            skipDigits()
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw Error(offset: start, reason: "number out of range")
        }
        return value
    }

    private mutating func skipDigits() {
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            index += 1
        }
    }
}
