// Sends N pushes through APNsSender to the APNs endpoint in the APNS_*
// environment (a local mock in the benchmark) with C in flight at once, and
// prints one JSON line: pushes/s, latency percentiles, peak RSS, connections.
// Run by scripts/bench/apns_benchmark.py; not installed.
import AgentSettings
import APNsClient
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

func argument(_ name: String, default value: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let number = Int(arguments[index + 1])
    else { return value }
    return number
}

func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func peakRSSMiB() -> Double {
    guard let file = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        if text.hasPrefix("VmHWM:"), let kib = Double(text.filter(\.isNumber)) { return kib / 1024 }
    }
    return 0
}

let count = argument("--count", default: 10_000)
let concurrency = argument("--concurrency", default: 100)
// The APNS_* settings read as the agent reads them.
let configuration = try Settings(sources: .process(file: nil)).apns.configuration.get()
let sender = try APNsSender(configuration: configuration, key: try APNsSigningKey(path: configuration.keyPath))
let token = String(repeating: "ab", count: 32)
let payload = try AlertPayload(
    event: .complete, prefix: "x1c", printerName: "X1C", fileName: "benchy.3mf", status: .complete, progress: 100
).encoded()
let created = SystemClock().now()
let push = Push(
    kind: .alert, event: .complete, printerPrefix: "x1c", deviceID: "bench", token: token, tokenKind: .device,
    topic: configuration.bundleID, priority: 10, collapseID: "x1c.complete", expiration: created + 3600,
    payload: payload, createdAt: created)

// Warm up: the connection and the provider token.
_ = await sender.send(push)

let start = now()
let results = await withTaskGroup(of: (Double, Bool).self) { group in
    var latencies: [(Double, Bool)] = []
    latencies.reserveCapacity(count)
    var started = 0
    func launch() {
        started += 1
        group.addTask {
            let begin = now()
            let outcome = await sender.send(push)
            return (now() - begin, outcome.isDelivered)
        }
    }
    while started < min(concurrency, count) { launch() }
    for await result in group {
        latencies.append(result)
        if started < count { launch() }
    }
    return latencies
}
let elapsed = now() - start
sender.shutdown()
let sorted = results.map(\.0).sorted()
func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
let delivered = results.filter(\.1).count
print(
    #"{"pushes":\#(count),"delivered":\#(delivered),"seconds":\#(elapsed),"pushes_per_second":\#(Double(count) / elapsed),"#
        + #""p50_ms":\#(percentile(0.5) * 1000),"p99_ms":\#(percentile(0.99) * 1000),"peak_rss_mib":\#(peakRSSMiB())}"#)
