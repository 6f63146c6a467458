import COpenSSL

/// OpenSSL's client side for the HTTP/2 connection: TLS 1.2 or later, ALPN
/// "h2", and the server's certificate verified against the system's trust
/// store (Debian's ca-certificates) or a CA file given for a test server.
final class TLSClientContext: @unchecked Sendable {
    // @unchecked Sendable: the SSL_CTX is configured in `init` and then only
    // read (SSL_new), which OpenSSL allows from any thread.
    let context: OpaquePointer

    init(caFile: String?) throws(HTTP2TransportError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw HTTP2TransportError(.setUp, "OpenSSL: \(OpenSSLError.text())")
        }
        self.context = context
        guard pb_ssl_ctx_set_min_tls12(context) == 1 else {
            throw HTTP2TransportError(.setUp, "OpenSSL: cannot require TLS 1.2: \(OpenSSLError.text())")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let trusted: Int32
        if let caFile {
            trusted = SSL_CTX_load_verify_locations(context, caFile, nil)
        } else {
            trusted = SSL_CTX_set_default_verify_paths(context)
        }
        guard trusted == 1 else {
            throw HTTP2TransportError(.setUp, "cannot load the trusted certificates\(caFile.map { " from \($0)" } ?? ""): \(OpenSSLError.text())")
        }
        // ALPN: a length-prefixed list with one protocol. 0 is success here.
        let h2: [UInt8] = [2, 0x68, 0x32]
        guard SSL_CTX_set_alpn_protos(context, h2, UInt32(h2.count)) == 0 else {
            throw HTTP2TransportError(.setUp, "OpenSSL: cannot offer HTTP/2 (ALPN): \(OpenSSLError.text())")
        }
    }

    deinit { SSL_CTX_free(context) }
}

/// OpenSSL's error queue as text (its queue is per thread; reading empties it).
enum OpenSSLError {
    /// The queued errors, or `fallback` when there are none.
    static func text(orElse fallback: @autoclosure () -> String = "no detail") -> String {
        var texts: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            texts.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return texts.isEmpty ? fallback() : texts.joined(separator: "; ")
    }
}
