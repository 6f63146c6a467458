#ifndef PRINTBRIDGE_COPENSSL_SHIM_H
#define PRINTBRIDGE_COPENSSL_SHIM_H

#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
#include <openssl/x509v3.h>
#include <openssl/decoder.h>

/* SSL_get_error reads the calling thread's error queue first: an error an
 * earlier OpenSSL call on the thread left there makes it answer
 * SSL_ERROR_SSL for a read or handshake that only has to wait (its manual,
 * doc/man3/SSL_get_error.pod: "The current thread's error queue must be
 * empty before the TLS/SSL I/O operation is attempted, or SSL_get_error()
 * will not work reliably"). Called before each TLS operation whose result
 * goes to SSL_get_error; peeking first keeps the common case to a look. */
static inline void pb_ssl_clear_stale_errors(void) {
    if (ERR_peek_error() != 0) ERR_clear_error();
}

/* OPENSSL_VERSION_TEXT is a string macro; expose the header's compile-time version. */
static inline const char *pb_openssl_header_version(void) { return OPENSSL_VERSION_TEXT; }

/* BIO_get_mem_data is a macro over BIO_ctrl. */
static inline long pb_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

/* EVP_PKEY_KEYPAIR is a macro of selection bits. */
static inline int pb_evp_pkey_keypair(void) { return EVP_PKEY_KEYPAIR; }

/* EVP_EC_gen is a macro over the variadic EVP_PKEY_Q_keygen. */
static inline EVP_PKEY *pb_evp_ec_gen(const char *curve) { return EVP_EC_gen(curve); }

/* The TLS client's settings are macros over SSL_CTX_ctrl / SSL_ctrl. */
static inline int pb_ssl_ctx_set_min_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}
/* The server a client connection must reach: an IP address is checked
 * against the certificate's IP entries; a name is sent as SNI and checked
 * against its DNS names. (TLSEngine's TLSConnection, for the APNs client.) */
#include <arpa/inet.h>
static inline void pb_ssl_expect_server(SSL *ssl, const char *host) {
    unsigned char address[16];
    if (inet_pton(AF_INET, host, address) == 1 || inet_pton(AF_INET6, host, address) == 1) {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
    } else {
        SSL_set_tlsext_host_name(ssl, host);
        SSL_set1_host(ssl, host);
    }
}
/* A write that must be repeated may come from a buffer that moved. */
static inline void pb_ssl_set_moving_write_buffer(SSL *ssl) { SSL_set_mode(ssl, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER); }

/* The API's TLS server: options and modes are macros or bit macros. No
 * resumption at all: no session cache, no TLS 1.2 tickets (SSL_OP_NO_TICKET)
 * and no TLS 1.3 tickets (num_tickets 0; with NO_TICKET alone 1.3 would
 * still issue stateful tickets), so every connection is a full handshake
 * against the current certificate and nothing of a session outlives it.
 * SSL_MODE_RELEASE_BUFFERS: a connection's read and write buffers (about
 * 34 KB) are freed while empty, e.g. while it waits for its request, rather
 * than held until it closes: 500 hostile connections at once peaked 3.3 MiB
 * (13 %) lower (scripts/bench/connection_flood.py). A connection carries
 * one request, so it costs a few more allocations each at most. */
static inline void pb_ssl_ctx_harden(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION
                                 | SSL_OP_NO_TICKET);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_num_tickets(ctx, 0);
}

#endif
