import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// TLS for wss:// on the link's RAW connection: OpenSSL over memory BIOs,
/// so the bytes still come and go through libwebsockets' RAW role (its
/// reads of up to 256 KB a wake-up) and the link frames the WebSocket
/// itself, as for ws://. libwebsockets 4.1.6's RAW client cannot start TLS
/// itself (`LinkContext.connect` says why), and its WebSocket client reads
/// every byte through a per-byte state machine (~13 µs an event).
///
/// Verifies the server against the system's CA certificates and
/// HA_CA_FILE's, when one is given (README); the host name (or IP address)
/// checked, SNI sent for a name. TLS 1.2 at least. Used only on the link's
/// thread.
final class LinkTLS {
    /// Why a TLS connection cannot go on; the text names TLS (the agent's
    /// hint on HA_CA_FILE looks for it).
    struct Failure: Error {
        let message: String
    }

    private let context: OpaquePointer
    private let ssl: OpaquePointer
    /// Ciphertext from the server goes in here; ours comes out of `outgoing`.
    private let incoming: OpaquePointer
    private let outgoingBIO: OpaquePointer
    private(set) var handshakeDone = false
    private let host: String

    /// A client for `host`, trusting `caFile` (PEM) or the system's CAs.
    init(host: String, caFile: String?) throws(Failure) {
        self.host = host
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw Failure(message: "TLS could not be set up") }
        self.context = context
        _ = pb_ssl_ctx_set_min_tls12(context)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        // The system's CAs, and HA_CA_FILE's added to them (README).
        let system = SSL_CTX_set_default_verify_paths(context)
        let trusted = caFile.map { SSL_CTX_load_verify_locations(context, $0, nil) } ?? system
        guard trusted == 1, let ssl = SSL_new(context), let incoming = BIO_new(BIO_s_mem()),
              let outgoing = BIO_new(BIO_s_mem())
        else {
            ERR_clear_error()
            SSL_CTX_free(context)
            throw Failure(message: "TLS could not be set up" + (caFile.map { " with HA_CA_FILE \($0)" } ?? ""))
        }
        self.ssl = ssl
        self.incoming = incoming
        outgoingBIO = outgoing
        SSL_set_bio(ssl, incoming, outgoing)  // the SSL owns both BIOs now
        pb_ssl_expect_server(ssl, host)
        SSL_set_connect_state(ssl)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// Starts the handshake (the ClientHello waits in `takeOutgoing`).
    func start() throws(Failure) {
        try handshake()
    }

    /// Takes ciphertext from the server; returns the plaintext it held
    /// (none until the handshake is done).
    func receive(_ ciphertext: UnsafeRawBufferPointer) throws(Failure) -> [UInt8] {
        if ciphertext.count > 0 {
            guard BIO_write(incoming, ciphertext.baseAddress, Int32(ciphertext.count)) == Int32(ciphertext.count) else {
                throw Failure(message: "TLS: out of memory")
            }
        }
        if !handshakeDone { try handshake() }
        guard handshakeDone else { return [] }
        var plaintext: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            pb_ssl_clear_stale_errors()
            let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                plaintext += chunk[..<Int(count)]
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return plaintext
            case SSL_ERROR_ZERO_RETURN:
                throw Failure(message: "TLS: Home Assistant closed the connection")
            default:
                throw Failure(message: "TLS: " + Self.queuedError(orElse: "the connection broke"))
            }
        }
    }

    /// Encrypts `plaintext` (the handshake must be done); the ciphertext
    /// waits in `takeOutgoing`.
    func send(_ plaintext: [UInt8]) throws(Failure) {
        guard !plaintext.isEmpty else { return }
        pb_ssl_clear_stale_errors()
        let written = plaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        guard written == Int32(plaintext.count) else {
            throw Failure(message: "TLS: " + Self.queuedError(orElse: "could not write"))
        }
    }

    /// Whether ciphertext waits to go to the server.
    var hasOutgoing: Bool { BIO_ctrl_pending(outgoingBIO) > 0 }

    /// The ciphertext waiting to go to the server, taken.
    func takeOutgoing() -> [UInt8] {
        let waiting = Int(BIO_ctrl_pending(outgoingBIO))
        guard waiting > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: waiting)
        let read = bytes.withUnsafeMutableBytes { BIO_read(outgoingBIO, $0.baseAddress, Int32(waiting)) }
        return Array(bytes.prefix(max(0, Int(read))))
    }

    private func handshake() throws(Failure) {
        pb_ssl_clear_stale_errors()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshakeDone = true
            return
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return
        default:
            let verify = SSL_get_verify_result(ssl)
            let detail = verify != X509_V_OK
                ? "certificate: " + String(cString: X509_verify_cert_error_string(verify))
                : Self.queuedError(orElse: "the server broke off")
            throw Failure(message: "TLS handshake with \(host) failed: \(detail)")
        }
    }

    /// OpenSSL's first queued error as text (the queue emptied), or `fallback`.
    static func queuedError(orElse fallback: String) -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return fallback }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
