import COpenSSL
import PrintBridgeCore

/// The secrets phones hold: pairing codes (short, one-time, for minutes) and
/// the credentials they are traded for (long, random, per phone). Only their
/// SHA-256 digests are kept; both come from OpenSSL's CSPRNG.
public enum PhoneCredentials {
    /// A credential's prefix, so one found in a log or a file says what it is.
    public static let credentialPrefix = "pbp_"
    /// Pairing codes' letters: no 0/O, 1/I/L or U, read off a screen without doubt.
    static let codeAlphabet = Array("ABCDEFGHJKMNPQRSTVWXYZ23456789")
    /// Pairing codes' length: 30^8 ≈ 6.6 × 10^11 codes, against ten guesses
    /// and then minutes of waiting per address.
    public static let codeLength = 8

    /// SHA-256 of `text`, lower-case hex.
    public static func digest(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil)
        return Hex.encode(digest)
    }

    static func random(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&bytes, Int32(count)) == 1, "OpenSSL has no random bytes")
        return bytes
    }

    /// A new credential: its id (for lists and revocation) and its secret.
    public static func newCredential() -> (id: String, secret: String) {
        let id = Hex.encode(random(8))
        return (id, credentialPrefix + Base64.urlEncode(random(32)))
    }

    /// A new pairing code, `ABCD-EFGH` (the dash is for reading; `normalised` drops it).
    public static func newPairingCode() -> String {
        var letters: [Character] = []
        while letters.count < codeLength {
            // Rejection sampling: 240 is the largest multiple of 30 below 256, so every letter is as likely.
            for byte in random(16) where byte < 240 && letters.count < codeLength {
                letters.append(codeAlphabet[Int(byte) % codeAlphabet.count])
            }
        }
        return String(letters.prefix(4)) + "-" + String(letters.suffix(4))
    }

    /// A code as a person may type it: case, spaces and dashes do not matter.
    public static func normalised(_ code: String) -> String {
        String(code.uppercased().filter { $0 != "-" && $0 != " " })
    }
}
