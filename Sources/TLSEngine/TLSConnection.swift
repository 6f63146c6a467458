import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// One TLS connection over a non-blocking socket, either side: owns the
/// `SSL` (freed in deinit) and carries out the handshake, reads, writes
/// and the close_notify. The socket stays its owner's: it must stay open
/// while the connection is used, and is closed by the owner (SSL_free
/// neither closes nor writes to it).
///
/// OpenSSL's rules are kept here, once for every connection (the APNs
/// client's, the app's API server's):
/// - every call whose result goes to `SSL_get_error` starts with the
///   thread's error queue empty (`pb_ssl_clear_stale_errors`):
///   `SSL_get_error` reads the queue first, and an error an earlier OpenSSL
///   call on the thread left there made a read that only had to wait look
///   like a failure (docs/BEHAVIOUR.md, HTTPServerTLSTests);
/// - a failure empties the queue into its text (`Failure`), so nothing of
///   it is left for the next connection's calls;
/// - a call that must wait says for what (`Wait`): the caller polls the
///   socket for that and calls again.
public final class TLSConnection {
    /// What the socket must become before the call is made again.
    public enum Wait: Equatable, Sendable { case readable, writable }

    /// A handshake step: finished, or waiting for the socket.
    public enum Step: Equatable, Sendable {
        case done
        case wait(Wait)
    }

    /// A read or a write: bytes moved, waiting for the socket, or the peer's
    /// close_notify (a read's; the connection is over).
    public enum Transfer: Equatable, Sendable {
        case moved(Int)
        case wait(Wait)
        case closed
    }

    /// Why the connection failed: OpenSSL's queued errors, else the system's
    /// (a reset socket), else "end of stream"; for a handshake the
    /// certificate's verification error when that was the cause.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    private let ssl: OpaquePointer
    /// Whether the handshake has finished.
    public private(set) var isEstablished = false

    /// The client side over `descriptor`, expecting the server `host`: a name
    /// is sent as SNI and checked against the certificate's DNS names, an IP
    /// address against its IP entries (`pb_ssl_expect_server`).
    public init(connecting descriptor: Int32, to host: String, context: TLSContext) throws(Failure) {
        ssl = try Self.make(context, descriptor)
        // A write that waits is repeated from a buffer that may have moved (a Swift array).
        pb_ssl_set_moving_write_buffer(ssl)
        pb_ssl_expect_server(ssl, host)
        SSL_set_connect_state(ssl)
    }

    /// The server side over an accepted `descriptor`.
    public init(accepting descriptor: Int32, context: TLSContext) throws(Failure) {
        ssl = try Self.make(context, descriptor)
        SSL_set_accept_state(ssl)
    }

    deinit { SSL_free(ssl) }

    private static func make(_ context: TLSContext, _ descriptor: Int32) throws(Failure) -> OpaquePointer {
        guard let ssl = SSL_new(context.context) else { throw Failure(description: "OpenSSL: \(OpenSSLError.text())") }
        SSL_set_fd(ssl, descriptor)
        return ssl
    }

    /// One step of the handshake. Throws when it failed: the certificate,
    /// the protocol, the peer gone.
    public func handshake() throws(Failure) -> Step {
        if isEstablished { return .done }
        pb_ssl_clear_stale_errors()
        let result = SSL_do_handshake(ssl)
        let code = errno
        if result == 1 {
            isEstablished = true
            return .done
        }
        if let wait = wait(after: result) { return .wait(wait) }
        let verify = SSL_get_verify_result(ssl)
        if verify != X509_V_OK {
            ERR_clear_error()
            throw Failure(description: "certificate: \(String(cString: X509_verify_cert_error_string(verify)))")
        }
        throw Failure(description: OpenSSLError.text(orErrno: code))
    }

    /// The protocol the peers agreed on by ALPN ("h2"), nil when none.
    public var negotiatedProtocol: String? {
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &name, &length)
        guard let name, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
    }

    /// Reads decrypted bytes into the start of `buffer` (up to its count).
    /// Throws when the connection broke.
    public func read(into buffer: inout [UInt8]) throws(Failure) -> Transfer {
        pb_ssl_clear_stale_errors()
        let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32(clamping: $0.count)) }
        let code = errno
        if count > 0 { return .moved(Int(count)) }
        if SSL_get_error(ssl, count) == SSL_ERROR_ZERO_RETURN { return .closed }
        if let wait = wait(after: count) { return .wait(wait) }
        throw Failure(description: OpenSSLError.text(orErrno: code))
    }

    /// Writes `bytes` from `offset` on (with partial writes on, some of
    /// them). Throws when the connection broke.
    public func write(_ bytes: [UInt8], from offset: Int = 0) throws(Failure) -> Transfer {
        guard offset < bytes.count else { return .moved(0) }
        pb_ssl_clear_stale_errors()
        let written = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32(clamping: $0.count - offset)) }
        let code = errno
        if written > 0 { return .moved(Int(written)) }
        if let wait = wait(after: written) { return .wait(wait) }
        throw Failure(description: OpenSSLError.text(orErrno: code))
    }

    /// Sends close_notify, once, without waiting for the peer's (the
    /// caller shuts the socket's side and, if it likes, lingers).
    public func shutdown() {
        guard isEstablished else { return }
        pb_ssl_clear_stale_errors()
        _ = SSL_shutdown(ssl)
        // Whatever it left (a peer already gone) is this connection's, not the next one's.
        ERR_clear_error()
    }

    /// After a call returned `result` ≤ 0: what it waits for, or nil for a failure.
    private func wait(after result: Int32) -> Wait? {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .readable
        case SSL_ERROR_WANT_WRITE: return .writable
        default: return nil
        }
    }
}
