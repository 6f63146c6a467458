import COpenSSL

/// OpenSSL's settings for one side of TLS connections (an `SSL_CTX`, freed
/// in deinit), shared by every `TLSConnection` made from it: the APNs
/// client's and the app's API server's. TLS 1.2 at least on both sides.
public final class TLSContext: @unchecked Sendable {
    // @unchecked Sendable: the SSL_CTX is set up in `init` and then only
    // read (SSL_new), which OpenSSL allows from any thread.
    let context: OpaquePointer

    /// Why a context could not be made, in words for the log.
    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    /// A client's: the server's certificate verified against the system's
    /// trust store (Debian's ca-certificates) or `caFile` (a local test
    /// server), offering `alpn` (one protocol name, e.g. "h2").
    public init(clientTrusting caFile: String?, alpn: String) throws(SetupError) {
        context = try Self.make(TLS_client_method())
        guard pb_ssl_ctx_set_min_tls12(context) == 1 else {
            throw SetupError(description: "OpenSSL: cannot require TLS 1.2: \(OpenSSLError.text())")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let trusted = if let caFile {
            SSL_CTX_load_verify_locations(context, caFile, nil)
        } else {
            SSL_CTX_set_default_verify_paths(context)
        }
        guard trusted == 1 else {
            throw SetupError(
                description: "cannot load the trusted certificates\(caFile.map { " from \($0)" } ?? ""): \(OpenSSLError.text())")
        }
        // ALPN: a length-prefixed list, here of one protocol. 0 is success here.
        let list = [UInt8(alpn.utf8.count)] + Array(alpn.utf8)
        guard SSL_CTX_set_alpn_protos(context, list, UInt32(list.count)) == 0 else {
            throw SetupError(description: "OpenSSL: cannot offer \(alpn) (ALPN): \(OpenSSLError.text())")
        }
    }

    /// A server's: the certificate chain and key from PEM files, TLS 1.2's
    /// suites limited to `tls12Ciphers` in the server's order, and no
    /// renegotiation, compression or resumption (`pb_ssl_ctx_harden` says why).
    public init(serverCertificate certificatePath: String, key keyPath: String, tls12Ciphers: String) throws(SetupError) {
        context = try Self.make(TLS_server_method())
        _ = pb_ssl_ctx_set_min_tls12(context)
        pb_ssl_ctx_harden(context)
        guard SSL_CTX_set_cipher_list(context, tls12Ciphers) == 1,
            SSL_CTX_use_certificate_chain_file(context, certificatePath) == 1
        else {
            throw SetupError(description: "\(certificatePath): cannot be used\(Self.firstError())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, keyPath, SSL_FILETYPE_PEM) == 1, SSL_CTX_check_private_key(context) == 1 else {
            throw SetupError(description: "\(keyPath) is not the key of \(certificatePath)\(Self.firstError())")
        }
    }

    deinit { SSL_CTX_free(context) }

    private static func make(_ method: OpaquePointer?) throws(SetupError) -> OpaquePointer {
        guard let context = SSL_CTX_new(method) else { throw SetupError(description: "OpenSSL: \(OpenSSLError.text())") }
        return context
    }

    /// ": " and OpenSSL's first queued error, or nothing.
    private static func firstError() -> String { OpenSSLError.first().map { ": " + $0 } ?? "" }
}
