// Test helper for DaemonTests (FootprintTests): raises the file limit as far
// as it may, creates a Home Assistant link (its libwebsockets context; it
// never connects) and prints the limit and the anonymous memory (heap) the
// link made resident.
import HomeAssistantLink
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

let files = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
var limit = rlimit()
getrlimit(files, &limit)
// At least 65,536 where allowed (root may raise the hard limit), else the hard limit.
var raised = rlimit(rlim_cur: max(limit.rlim_max, 65536), rlim_max: max(limit.rlim_max, 65536))
if setrlimit(files, &raised) != 0 {
    limit.rlim_cur = limit.rlim_max
    setrlimit(files, &limit)
}
getrlimit(files, &limit)

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
// The frame reader (entity matcher) is made first: what is measured is the
// link's libwebsockets context, whose tables could grow with the file limit.
let reader = HAFrameReader()
let before = heapBytes()
let link = HomeAssistantLink(endpoint: endpoint, accessToken: "unused", reader: reader)
let taken = heapBytes() - before
print(#"{"fileLimit":\#(limit.rlim_cur),"bytes":\#(taken),"readBuffer":\#(HomeAssistantLink.readBufferBytes)}"#)
withExtendedLifetime(link) {}
