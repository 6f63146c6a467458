import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// The TLS client side of one connection: owns the `SSL` object (freed by
/// `close` or deinit) and holds the TCP connection whose socket it runs
/// over, so the descriptor outlives it. Verifies the server's name (or IP
/// address) and insists on HTTP/2 (ALPN h2).
final class TLSStream {
    enum Handshake: Equatable { case wantsRead, wantsWrite, done }

    private var ssl: OpaquePointer?
    private let socket: TCPConnection
    private let authority: String

    init(context: TLSClientContext, over socket: TCPConnection, host: String, authority: String) throws(HTTP2TransportError) {
        guard let ssl = SSL_new(context.context) else {
            throw HTTP2TransportError(.tls, "OpenSSL: \(OpenSSLError.text())")
        }
        self.ssl = ssl
        self.socket = socket
        self.authority = authority
        SSL_set_fd(ssl, socket.descriptor)
        pb_ssl_set_moving_write_buffer(ssl)
        pb_ssl_expect_server(ssl, host)
        SSL_set_connect_state(ssl)
    }

    deinit { close() }

    /// Frees the SSL object (idempotent); the socket is its owner's to close.
    func close() {
        if let ssl { SSL_free(ssl) }
        ssl = nil
    }

    /// One step of the handshake; throws when it failed (the certificate,
    /// the protocol, a server that does not speak HTTP/2).
    func handshake() throws(HTTP2TransportError) -> Handshake {
        guard let ssl else { throw HTTP2TransportError(.tls, "TLS handshake with \(authority) failed: closed") }
        pb_ssl_clear_stale_errors()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            var protocolName: UnsafePointer<UInt8>?
            var length: UInt32 = 0
            SSL_get0_alpn_selected(ssl, &protocolName, &length)
            guard length == 2, let protocolName, protocolName[0] == 0x68, protocolName[1] == 0x32 else {
                throw HTTP2TransportError(.tls, "\(authority) did not agree to HTTP/2 (ALPN h2)")
            }
            return .done
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantsRead
        case SSL_ERROR_WANT_WRITE: return .wantsWrite
        default:
            let verify = SSL_get_verify_result(ssl)
            let detail = verify != X509_V_OK
                ? "certificate: \(String(cString: X509_verify_cert_error_string(verify)))"
                : OpenSSLError.text(orErrno: errno)
            throw HTTP2TransportError(.tls, "TLS handshake with \(authority) failed: \(detail)")
        }
    }

    /// Reads decrypted bytes into `buffer`: how many, or 0 when the socket
    /// has nothing now. Throws when the connection ended.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTP2TransportError) -> Int {
        guard let ssl else { throw lost() }
        pb_ssl_clear_stale_errors()
        let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if count > 0 { return Int(count) }
        switch SSL_get_error(ssl, count) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return 0
        case SSL_ERROR_ZERO_RETURN:
            throw HTTP2TransportError(.connectionLost, "\(authority) closed the connection")
        default:
            throw lost()
        }
    }

    /// Writes `bytes` from `offset` on: how many were taken, or 0 when the
    /// socket is full (wait for it to be writable). Throws when the connection broke.
    func write(_ bytes: [UInt8], from offset: Int) throws(HTTP2TransportError) -> Int {
        guard let ssl else { throw lost() }
        pb_ssl_clear_stale_errors()
        let written = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32($0.count - offset)) }
        if written > 0 { return Int(written) }
        switch SSL_get_error(ssl, written) {
        case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ: return 0
        default: throw lost()
        }
    }

    private func lost() -> HTTP2TransportError {
        HTTP2TransportError(.connectionLost, "connection to \(authority) lost: \(OpenSSLError.text(orErrno: errno))")
    }
}

extension OpenSSLError {
    /// OpenSSL's queued errors, or the system error when it has none (a reset socket).
    static func text(orErrno code: Int32) -> String {
        text(orElse: code == 0 ? "end of stream" : String(cString: strerror(code)))
    }
}
