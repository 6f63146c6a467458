import COpenSSL
import PrintBridgeCore

/// The links to the pictures: `/api/snapshots/<name>?expires=<unix
/// seconds>&sig=<HMAC-SHA256 of "<name>|<expires>", base64url>`, signed
/// with a key kept in the store. The link is the credential (a phone's
/// Notification Service Extension fetches it without the API token): a
/// name the agent made at random, an expiry, and a signature nobody without
/// the key can make.
public struct SnapshotSigner: Sendable {
    private let key: [UInt8]

    /// The key's length in bytes (SHA-256's block is 64; 32 random bytes suffice).
    public static let keyBytes = 32

    public init(key: [UInt8]) {
        precondition(key.count >= 16, "a snapshot key needs at least 16 bytes")
        self.key = key
    }

    /// A new random key (OpenSSL's CSPRNG); nil if it has no entropy.
    public static func newKey() -> [UInt8]? {
        var key = [UInt8](repeating: 0, count: keyBytes)
        return RAND_bytes(&key, Int32(keyBytes)) == 1 ? key : nil
    }

    /// The route the links point at.
    public static let routePrefix = "/api/snapshots/"

    /// The signed link (relative to the agent's address) to picture `name`, valid until `expires`.
    public func link(name: String, expires: EpochTime) -> String {
        let seconds = expires.wholeSeconds
        return "\(Self.routePrefix)\(name)?expires=\(seconds)&sig=\(signature(name: name, expires: seconds))"
    }

    func signature(name: String, expires: Int) -> String {
        Base64.urlEncode(mac(Array("\(name)|\(expires)".utf8)))
    }

    private func mac(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &digest, &length)
        return Array(digest.prefix(Int(length)))
    }

    /// What a link's parts say.
    public enum Verdict: Hashable, Sendable {
        case valid(expires: EpochTime)
        /// No signature, or not this key's for this name and expiry.
        case forged
        /// Signed, but its time is over.
        case expired
    }

    /// Checks a request's `expires` and `sig` for picture `name` at `now`;
    /// the signatures are compared in constant time.
    public func check(name: String, expires: String?, signature: String?, now: EpochTime) -> Verdict {
        guard let expires, let seconds = Int(expires), let signature else { return .forged }
        let expected = Array(self.signature(name: name, expires: seconds).utf8)
        let given = Array(signature.utf8)
        guard given.count == expected.count, CRYPTO_memcmp(given, expected, given.count) == 0 else { return .forged }
        return EpochTime(seconds: Double(seconds)) > now ? .valid(expires: EpochTime(seconds: Double(seconds))) : .expired
    }
}
