import CNGHTTP2
import CLibWebSockets
import COpenSSL
import CSQLite

/// Version and capability facts about the C libraries PrintBridge links.
///
/// Later layers (HA link, APNs sender, device store) use these libraries in
/// depth; this type is the small, always-available proof that each one is
/// linked and usable, shown by `printbridge --version` and the link tests.
public enum SystemLibraries {
    /// libwebsockets' own version string, e.g. "4.1.6-".
    public static var libWebSocketsVersion: String {
        String(cString: lws_get_library_version())
    }

    /// nghttp2's version string, e.g. "1.52.0": the APNs client's HTTP/2 framing.
    public static var nghttp2Version: String {
        guard let info = nghttp2_version(0), let version = info.pointee.version_str else { return "unknown" }
        return String(cString: version)
    }

    /// Whether the linked OpenSSL negotiates ALPN, which HTTP/2 over TLS (APNs) requires.
    public static var openSSLSupportsALPN: Bool {
        guard let context = SSL_CTX_new(TLS_client_method()) else { return false }
        defer { SSL_CTX_free(context) }
        let h2: [UInt8] = [2, 0x68, 0x32]
        return SSL_CTX_set_alpn_protos(context, h2, UInt32(h2.count)) == 0
    }

    /// OpenSSL's runtime version string, e.g. "OpenSSL 3.0.19 ...".
    public static var openSSLVersion: String {
        String(cString: OpenSSL_version(OPENSSL_VERSION))
    }

    /// Whether OpenSSL can create a P-256 key, the curve APNs ES256 tokens use.
    public static var openSSLSupportsP256: Bool {
        guard let key = pb_evp_ec_gen("P-256") else { return false }
        EVP_PKEY_free(key)
        return true
    }

    /// SQLite's runtime version, e.g. "3.40.1".
    public static var sqliteVersion: String {
        String(cString: sqlite3_libversion())
    }

    /// Whether SQLite was compiled thread-safe (needed when the store is used off one thread).
    public static var sqliteThreadSafe: Bool {
        sqlite3_threadsafe() != 0
    }

    /// A one-line summary for `--version` output.
    public static var summary: String {
        "libwebsockets \(libWebSocketsVersion.trimmingTrailingDash), nghttp2 \(nghttp2Version),"
            + " \(openSSLVersion), SQLite \(sqliteVersion)"
    }
}

extension String {
    fileprivate var trimmingTrailingDash: String {
        hasSuffix("-") ? String(dropLast()) : self
    }
}
