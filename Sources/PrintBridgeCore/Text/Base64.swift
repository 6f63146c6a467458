#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Base64 for the two places that need it, through FoundationEssentials'
/// `Data` (already linked; not all of Foundation): HTTP Basic credentials
/// (RFC 4648 §4) and the JWT's base64url without padding (RFC 7515).
public enum Base64 {
    /// Standard base64, padding optional (as browsers and curl send it,
    /// with; as some clients do, without); nil for anything else.
    public static func decode(_ text: Substring) -> [UInt8]? {
        var padded = String(text)
        if padded.utf8.count % 4 != 0 { padded += String(repeating: "=", count: 4 - padded.utf8.count % 4) }
        return Data(base64Encoded: padded).map(Array.init)
    }

    /// Standard base64 with padding (RFC 4648 §4).
    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// base64url without padding (RFC 7515 §2), as JWTs carry their parts.
    public static func urlEncode(_ bytes: [UInt8]) -> String {
        var text = encode(bytes)
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
