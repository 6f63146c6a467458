// The footprint floor for scripts/bench/daemon_benchmark.py: a program that
// only links and initialises the C libraries `printbridge run` is built on
// (libwebsockets, libcurl, OpenSSL), built with the same flags, then sleeps.
// Its RSS is what any agent on this stack pays before doing anything, on the
// machine the benchmark runs on. Not installed.
import CCurl
import CLibWebSockets
import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

_ = OPENSSL_init_ssl(0, nil)
_ = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
print("floor: \(String(cString: lws_get_library_version())), \(String(cString: curl_version()))")
fflush(nil)
while true { sleep(3600) }
