// The footprint floor for scripts/bench/daemon_benchmark.py: a program that
// only links and initialises the C libraries `printbridge run` is built on
// (libwebsockets, nghttp2, OpenSSL), built with the same flags, then sleeps.
// Its RSS is what any agent on this stack pays before doing anything, on the
// machine the benchmark runs on. Given a .p8 key file, it also loads that the
// way `run` does at start-up, to show what the key alone costs. Not installed.
import CNGHTTP2
import CLibWebSockets
import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

_ = OPENSSL_init_ssl(0, nil)
if CommandLine.arguments.count > 1 {
    let file = BIO_new_file(CommandLine.arguments[1], "r")
    guard let file, PEM_read_bio_PrivateKey(file, nil, nil, nil) != nil else {
        print("floor: cannot load the key \(CommandLine.arguments[1])")
        exit(1)
    }
    BIO_free(file)
}
print("floor: \(String(cString: lws_get_library_version())), nghttp2 \(String(cString: nghttp2_version(0).pointee.version_str))")
fflush(nil)
while true { sleep(3600) }
