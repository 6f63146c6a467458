import CCurl
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

    /// libcurl's version string, e.g. "7.88.1".
    public static var curlVersion: String {
        guard let info = pb_curl_version_info_now(), let version = info.pointee.version else {
            return "unknown"
        }
        return String(cString: version)
    }

    /// Whether the linked libcurl was built with HTTP/2 (nghttp2), which APNs requires.
    public static var curlSupportsHTTP2: Bool {
        guard let info = pb_curl_version_info_now() else { return false }
        return (info.pointee.features & CURL_VERSION_HTTP2) != 0
    }

    /// The TLS backend libcurl uses, e.g. "OpenSSL/3.0.19".
    public static var curlTLSBackend: String {
        guard let info = pb_curl_version_info_now(), let ssl = info.pointee.ssl_version else {
            return "none"
        }
        return String(cString: ssl)
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
        "libwebsockets \(libWebSocketsVersion.trimmingTrailingDash), libcurl \(curlVersion)"
            + " (\(curlSupportsHTTP2 ? "HTTP/2" : "no HTTP/2"), \(curlTLSBackend)),"
            + " \(openSSLVersion), SQLite \(sqliteVersion)"
    }
}

extension String {
    fileprivate var trimmingTrailingDash: String {
        hasSuffix("-") ? String(dropLast()) : self
    }
}
