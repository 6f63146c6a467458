import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// The APNs auth key (.p8): a P-256 private key in PKCS#8 PEM, owned here and
/// freed with this object. Its bytes never leave OpenSSL and never appear in
/// an error message.
public final class APNsSigningKey: @unchecked Sendable {
    // @unchecked Sendable: the EVP_PKEY is never mutated after loading, and
    // OpenSSL 3 allows concurrent signing with one key (each sign uses its own
    // EVP_MD_CTX).
    private let key: OpaquePointer

    /// Why a key file cannot be used, in words a user can act on.
    public enum LoadError: Error, Hashable, Sendable, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        case notAPrivateKey(path: String)
        case notP256(path: String, found: String)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason):
                return "APNs key file \(path) cannot be read: \(reason)"
            case .notAPrivateKey(let path):
                return "APNs key file \(path) is not a PEM-encoded PKCS#8 private key (the AuthKey_XXXXXXXXXX.p8 file from Apple)"
            case .notP256(let path, let found):
                return "APNs key file \(path) holds a \(found) key; APNs token authentication needs an ES256 (P-256) key"
            }
        }
    }

    /// Loads and checks a .p8 file.
    public convenience init(path: String) throws(LoadError) {
        let bytes: [UInt8]
        do throws(FileError) { bytes = try readFile(path) } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        try self.init(pem: bytes, source: path)
    }

    /// Loads and checks PEM bytes; `source` names them in errors.
    public init(pem: [UInt8], source: String) throws(LoadError) {
        let parsed = Self.decodeECKey(pem) ?? pem.withUnsafeBytes { buffer -> OpaquePointer? in
            // Not an EC key in PEM: decoded as any key, to say what it is.
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        ERR_clear_error()
        guard let parsed else { throw .notAPrivateKey(path: source) }
        guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_EC else {
            let bits = EVP_PKEY_get_bits(parsed)
            let kind = EVP_PKEY_get_base_id(parsed) == EVP_PKEY_RSA ? "RSA-\(bits)" : "non-EC \(bits)-bit"
            EVP_PKEY_free(parsed)
            throw .notP256(path: source, found: kind)
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        let group = EVP_PKEY_get_group_name(parsed, &name, name.count, &length) == 1
            ? name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : "unknown"
        guard group == "prime256v1" || group == "P-256" else {
            EVP_PKEY_free(parsed)
            throw .notP256(path: source, found: "EC \(group)")
        }
        key = parsed
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// An EC private key from PEM through a decoder asked for just that
    /// (PEM in, an EC key pair out): `PEM_read_bio_PrivateKey` tries every
    /// decoder of every provider, ~10 million instructions, a third of the
    /// sender's start-up (callgrind on apns_benchmark.py --callgrind-sender).
    /// Nil when the bytes are not that.
    private static func decodeECKey(_ pem: [UInt8]) -> OpaquePointer? {
        var key: OpaquePointer?
        guard let decoder = OSSL_DECODER_CTX_new_for_pkey(&key, "PEM", nil, "EC", pb_evp_pkey_keypair(), nil, nil) else { return nil }
        defer { OSSL_DECODER_CTX_free(decoder) }
        let decoded = pem.withUnsafeBytes { buffer -> Bool in
            var data = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var length = buffer.count
            return OSSL_DECODER_from_data(decoder, &data, &length) == 1
        }
        guard decoded, let key else {
            if let key { EVP_PKEY_free(key) }
            return nil
        }
        return key
    }

    /// An ES256 signature of `message`: the raw 64-byte r‖s JWS wants
    /// (OpenSSL produces DER, which is converted here).
    public func sign(_ message: [UInt8]) -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            ERR_clear_error()
            return nil
        }
        var length = 0
        guard message.withUnsafeBufferPointer({ EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }) == 1
        else { return nil }
        var der = [UInt8](repeating: 0, count: length)
        let signed = der.withUnsafeMutableBufferPointer { out in
            message.withUnsafeBufferPointer { EVP_DigestSign(context, out.baseAddress, &length, $0.baseAddress, $0.count) }
        }
        guard signed == 1 else {
            ERR_clear_error()
            return nil
        }
        return Self.rawSignature(fromDER: Array(der.prefix(length)))
    }

    private static func rawSignature(fromDER der: [UInt8]) -> [UInt8]? {
        der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            var raw = [UInt8](repeating: 0, count: 64)
            let ok = raw.withUnsafeMutableBufferPointer { out -> Bool in
                BN_bn2binpad(r, out.baseAddress, 32) == 32 && BN_bn2binpad(s, out.baseAddress! + 32, 32) == 32
            }
            return ok ? raw : nil
        }
    }
}

/// A file that could not be read, with errno's words.
struct FileError: Error {
    var reason: String
}

/// Reads a whole (small) file.
func readFile(_ path: String) throws(FileError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw FileError(reason: String(cString: strerror(errno))) }
    defer { close(fd) }
    var info = stat()
    if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { throw FileError(reason: "it is a directory") }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw FileError(reason: String(cString: strerror(errno)))
        }
        if count == 0 { return bytes }
        bytes += chunk[0..<count]
        if bytes.count > 1 << 20 { throw FileError(reason: "it is larger than 1 MiB") }
    }
}
