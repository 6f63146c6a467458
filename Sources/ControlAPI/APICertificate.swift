import COpenSSL
import PrintBridgeCore
import TLSEngine

#if canImport(Glibc)
import Glibc
#endif

/// The API's TLS certificate: the one the agent makes for itself on first
/// start (an EC P-256 key and a self-signed certificate, kept in the state
/// directory, the key 0600), or one the user gives (API_CERT_FILE and
/// API_KEY_FILE, e.g. from a reverse proxy's ACME). The phone does not
/// trust it through a CA: it pins it, by the fingerprint pairing showed.
public struct APICertificate: Sendable {
    public let certificatePath: String
    public let keyPath: String
    /// SHA-256 of the certificate (DER), upper-case hex in colon pairs, as
    /// `openssl x509 -fingerprint -sha256` and browsers show it; the app pins this.
    public let fingerprint: String
    /// SHA-256 of the public key (SubjectPublicKeyInfo, DER), base64: the
    /// pin curl takes as `--pinnedpubkey sha256//<this>`; stays the same
    /// across a renewal that keeps the key.
    public let publicKeyPin: String
    /// When the certificate stops being valid (seconds since 1970).
    public let notAfter: EpochTime

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Reads a certificate (the first of a chain) and checks its key file exists.
    public static func load(certificate: String, key: String) throws(Failure) -> APICertificate {
        try reading(certificate) { x509 throws(Failure) in
            guard access(key, R_OK) == 0 else {
                throw Failure(description: "cannot read \(key): \(String(cString: strerror(errno)))")
            }
            return APICertificate(certificatePath: certificate, keyPath: key, x509: x509)
        }
    }

    /// The first certificate of the PEM file at `path`, for `body`.
    private static func reading<T>(_ path: String, _ body: (OpaquePointer) throws(Failure) -> T) throws(Failure) -> T {
        guard let file = fopen(path, "r") else {
            throw Failure(description: "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        guard let x509 = PEM_read_X509(file, nil, nil, nil) else {
            throw Failure(description: "\(path) is not a PEM certificate\(Self.openSSLError())")
        }
        defer { X509_free(x509) }
        return try body(x509)
    }

    /// Whether the certificate names `host` (a DNS name, or an IPv4 or IPv6
    /// address without brackets) as a client checking names would find it
    /// (OpenSSL's X509_check_ip_asc / X509_check_host: subjectAltName,
    /// wildcards). Phones pin the certificate and do not ask this; browsers
    /// and curl without --insecure do.
    public func names(_ host: String) throws(Failure) -> Bool {
        try Self.reading(certificatePath) { x509 in
            let ip = X509_check_ip_asc(x509, host, 0)
            if ip >= 0 { return ip == 1 }  // -2: not an IP address
            return X509_check_host(x509, host, host.utf8.count, 0, nil) == 1
        }
    }

    private init(certificatePath: String, keyPath: String, x509: OpaquePointer) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        X509_digest(x509, EVP_sha256(), &digest, &length)
        fingerprint = Hex.encode(digest.prefix(Int(length)), uppercase: true, separator: ":")
        var der: UnsafeMutablePointer<UInt8>?
        let count = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x509), &der)
        var pin = [UInt8](repeating: 0, count: 32)
        if count > 0, let der {
            var size: UInt32 = 0
            EVP_Digest(der, Int(count), &pin, &size, EVP_sha256(), nil)
            CRYPTO_free(der, #fileID, #line)
        }
        publicKeyPin = Base64.encode(pin)
        var seconds: Int64 = 0
        var days: Int32 = 0
        var secondsPart: Int32 = 0
        if ASN1_TIME_diff(&days, &secondsPart, nil, X509_get0_notAfter(x509)) == 1 {
            seconds = Int64(days) * 86400 + Int64(secondsPart)
        }
        notAfter = SystemClock().now() + Double(seconds)
    }

    /// Where the agent keeps its own certificate and key in `directory`.
    public static func ownPaths(in directory: String) -> (certificate: String, key: String) {
        (directory + "/api-cert.pem", directory + "/api-key.pem")
    }

    /// The agent's own certificate in `directory` (`api-cert.pem`,
    /// `api-key.pem`): read if it is there, else made (`hostNames` go into its
    /// subjectAltName with localhost and 127.0.0.1). Returns it and whether it was made.
    public static func own(in directory: String, hostNames: [String]) throws(Failure) -> (APICertificate, made: Bool) {
        let (certificate, key) = ownPaths(in: directory)
        if access(certificate, F_OK) == 0 || access(key, F_OK) == 0 {
            return (try load(certificate: certificate, key: key), false)
        }
        try make(certificate: certificate, key: key, hostNames: hostNames)
        return (try load(certificate: certificate, key: key), true)
    }

    /// Makes a new key and self-signed certificate (valid 10 years), replacing
    /// what is at the paths: the key written 0600, both by rename.
    public static func make(certificate: String, key: String, hostNames: [String]) throws(Failure) {
        guard let pkey = pb_evp_ec_gen("P-256") else { throw Failure(description: "cannot make an EC key\(openSSLError())") }
        defer { EVP_PKEY_free(pkey) }
        guard let x509 = X509_new() else { throw Failure(description: "out of memory") }
        defer { X509_free(x509) }
        X509_set_version(x509, 2)
        var serial = [UInt8](repeating: 0, count: 8)
        _ = RAND_bytes(&serial, 8)
        ASN1_INTEGER_set_int64(X509_get_serialNumber(x509), Int64(serial.reduce(0) { $0 << 8 | UInt64($1) } >> 2))
        X509_gmtime_adj(X509_getm_notBefore(x509), -3600)
        X509_gmtime_adj(X509_getm_notAfter(x509), 10 * 365 * 86400)
        X509_set_pubkey(x509, pkey)
        let name = X509_get_subject_name(x509)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, "PrintBridge", -1, -1, 0)
        X509_set_issuer_name(x509, name)
        let names = (["localhost"] + hostNames).filter { !$0.isEmpty }
        var alternatives = names.map { ($0.contains(":") || $0.allSatisfy { $0.isNumber || $0 == "." }) ? "IP:\($0)" : "DNS:\($0)" }
        alternatives.append("IP:127.0.0.1")
        for (nid, value) in [
            (NID_subject_alt_name, Array(Set(alternatives)).sorted().joined(separator: ",")),
            (NID_basic_constraints, "critical,CA:FALSE"), (NID_key_usage, "critical,digitalSignature"),
            (NID_ext_key_usage, "serverAuth"),
        ] {
            guard let ext = X509V3_EXT_conf_nid(nil, nil, nid, value) else {
                throw Failure(description: "cannot make the certificate's \(value)\(openSSLError())")
            }
            X509_add_ext(x509, ext, -1)
            X509_EXTENSION_free(ext)
        }
        guard X509_sign(x509, pkey, EVP_sha256()) > 0 else { throw Failure(description: "cannot sign\(openSSLError())") }
        try write(key, mode: 0o600) { bio in PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) }
        try write(certificate, mode: 0o644) { bio in PEM_write_bio_X509(bio, x509) }
    }

    private static func write(_ path: String, mode: mode_t, _ body: (OpaquePointer) -> Int32) throws(Failure) {
        guard let bio = BIO_new(BIO_s_mem()) else { throw Failure(description: "out of memory") }
        defer { BIO_free(bio) }
        guard body(bio) == 1 else { throw Failure(description: "cannot encode \(path)\(openSSLError())") }
        var data: UnsafeMutablePointer<CChar>?
        let count = Int(pb_bio_get_mem_data(bio, &data))
        let temporary = path + ".part"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
        let written = data.map { Glibc.write(descriptor, $0, count) } ?? -1
        fchmod(descriptor, mode)
        close(descriptor)
        guard written == count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Failure(description: "cannot write \(path)")
        }
    }

    /// ": " and OpenSSL's first queued error, or nothing.
    static func openSSLError() -> String { OpenSSLError.first().map { ": " + $0 } ?? "" }
}
