// Test helper for DaemonTests (FileLimitTests): raises the soft file limit to
// the hard one, creates a Home Assistant link (its libwebsockets context; it
// never connects) and prints the limit and the anonymous memory (heap) the
// link made resident.
import HomeAssistantLink

#if canImport(Glibc)
import Glibc
#endif

var limit = rlimit()
getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
limit.rlim_cur = limit.rlim_max
setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)

/// RssAnon of this process, in bytes: heap and other private memory in use.
func heapBytes() -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        if text.hasPrefix("RssAnon:") {
            return (Int(text.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0) * 1024
        }
    }
    return 0
}

let endpoint = try HAEndpoint(url: "ws://127.0.0.1:9/api/websocket")
let before = heapBytes()
let link = HomeAssistantLink(endpoint: endpoint, accessToken: "unused")
let taken = heapBytes() - before
print(#"{"fileLimit":\#(limit.rlim_cur),"bytes":\#(taken)}"#)
withExtendedLifetime(link) {}
