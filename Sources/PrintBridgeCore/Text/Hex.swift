/// Bytes as hexadecimal text, two digits each (digests, random names, keys
/// kept as text, certificate fingerprints).
public enum Hex {
    public static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool = false, separator: String = "") -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: uppercase) }.joined(separator: separator)
    }

    /// The bytes of an even number of hex digits; nil for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
