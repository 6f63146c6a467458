import TLSEngine

/// The API's TLS settings: TLS 1.2 and 1.3 only; for 1.2 only
/// forward-secret AEAD suites (ECDHE with AES-GCM or ChaCha20-Poly1305,
/// Mozilla's "intermediate" list), the server's order; no renegotiation,
/// no compression, no resumption (one request per connection). The
/// connections themselves are `TLSConnection`s, as the APNs client's are.
public final class TLSServerContext: Sendable {
    let tls: TLSContext

    public static let tls12Ciphers =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    public init(_ certificate: APICertificate) throws(APICertificate.Failure) {
        do {
            tls = try TLSContext(
                serverCertificate: certificate.certificatePath, key: certificate.keyPath, tls12Ciphers: Self.tls12Ciphers)
        } catch {
            throw APICertificate.Failure(description: error.description)
        }
    }
}
