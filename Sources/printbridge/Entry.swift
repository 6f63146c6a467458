#if canImport(Glibc)
import Glibc
#endif

/// The program's entry point. The command runs on Swift's cooperative
/// threads while the main thread only waits. An `async` main would have the
/// runtime end the main thread with `pthread_exit` instead, which unwinds its
/// stack through the unwind tables and keeps them and the unwinder (~0.6 MB)
/// resident for the life of the daemon. Nothing here runs on the main actor.
@main
enum Entry {
    static func main() {
        skipUnusedLibraryInitialisation()
        FreedMemory.configure()  // before any other thread allocates
        Task.detached {
            await PrintBridgeCommand.main()
            exit(0)  // what the runtime does when an async main returns
        }
        while true { pause() }
    }

    /// libcurl links librtmp, which links GnuTLS, and GnuTLS initialises
    /// itself as it is loaded (its priority settings, crypto back-ends and
    /// p11-kit): ~0.7 MB resident for a library PrintBridge never calls (its
    /// TLS is OpenSSL's). `GNUTLS_NO_IMPLICIT_INIT=1` turns that off, but is
    /// read only at load time, so the program sets it and starts itself again,
    /// once, as the same process. librtmp would still initialise GnuTLS itself
    /// if an rtmp:// URL were ever used. A value the user set is left alone;
    /// if the restart fails, the program carries on as it is.
    private static func skipUnusedLibraryInitialisation() {
        guard getenv("GNUTLS_NO_IMPLICIT_INIT") == nil else { return }
        setenv("GNUTLS_NO_IMPLICIT_INIT", "1", 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
    }
}
