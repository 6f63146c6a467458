/// A request's query string as names and values: `&`-separated
/// `name=value` pairs, percent-decoded, `+` a space (as HTML forms and
/// URLComponents' callers write it).
struct QueryString: Sendable, Hashable {
    private(set) var values: [String: String] = [:]
    /// Names given more than once (a value is never chosen among several).
    private(set) var repeated: Set<String> = []

    /// Nil when a name or value is not valid percent-encoded UTF-8.
    init?(_ text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else {
                return nil
            }
            if values[name] != nil { repeated.insert(name) }
            values[name] = value
        }
    }

    subscript(_ name: String) -> String? { values[name] }

    var names: [String] { values.keys.sorted() }

    private static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
