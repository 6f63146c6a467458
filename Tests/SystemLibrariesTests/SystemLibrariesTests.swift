import Testing
import SystemLibraries

/// Each C library is linked and answers: these fail at link or run time if a
/// system-library target or its Debian package is missing.
@Suite struct SystemLibrariesTests {
    @Test func libWebSocketsReportsVersion4() {
        #expect(SystemLibraries.libWebSocketsVersion.hasPrefix("4."))
    }

    @Test func nghttp2IsLinkedAndOpenSSLOffersALPN() {
        #expect(SystemLibraries.nghttp2Version.first?.isNumber == true)
        #expect(SystemLibraries.openSSLSupportsALPN, "HTTP/2 over TLS (APNs) is chosen by ALPN")
    }

    @Test func openSSLIsVersion3AndCanMakeP256Keys() {
        #expect(SystemLibraries.openSSLVersion.hasPrefix("OpenSSL 3."))
        #expect(SystemLibraries.openSSLSupportsP256)
    }

    @Test func sqliteIsThreadSafe() {
        #expect(SystemLibraries.sqliteVersion.hasPrefix("3."))
        #expect(SystemLibraries.sqliteThreadSafe)
    }
}
