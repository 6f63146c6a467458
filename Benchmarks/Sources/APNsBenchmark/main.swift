// Sends N pushes through APNsSender to the APNs endpoint in the APNS_*
// environment (a local mock in the benchmark) with C in flight at once, and
// prints one JSON line: pushes/s, latency percentiles, peak RSS, connections.
// The pushes go as `replay --send` sends a fan-out (below).
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

// As `replay --send` sends a fan-out: each round starts as many pushes as
// the window has room for, as one batch (`send(_:to:)`), then takes every
// answer that came meanwhile. A push's latency runs from its round's start
// to the round that took its answer.
// In a function, not at the top level: the top level's variables are
// globals, and each access to one paid a dynamic exclusivity check the
// sender does not (~140 instructions a push, callgrind).
func sendAll() async -> (latencies: [Double], delivered: Int, elapsed: Double) {
    let answers = PushAnswers()
    var startedAt = [Double](repeating: 0, count: count)
    var latencies: [Double] = []
    latencies.reserveCapacity(count)
    var started = 0, delivered = 0
    let start = now()
    while latencies.count < count {
        let roundStart = now()
        var batch: [TaggedPush] = []
        batch.reserveCapacity(min(concurrency, count - started))
        while started < count, started - latencies.count < concurrency {
            startedAt[started] = roundStart
            batch.append(TaggedPush(push, tag: started))
            started += 1
        }
        sender.send(batch, to: answers)
        let ready = await answers.next()
        let taken = now()
        for (tag, outcome) in ready {
            latencies.append(taken - startedAt[tag])
            if outcome.isDelivered { delivered += 1 }
        }
    }
    return (latencies, delivered, now() - start)
}
let (latencies, delivered, elapsed) = await sendAll()
sender.shutdown()
let sorted = latencies.sorted()
func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print(
    #"{"pushes":\#(count),"delivered":\#(delivered),"seconds":\#(elapsed),"pushes_per_second":\#(Double(count) / elapsed),"#
        + #""p50_ms":\#(percentile(0.5) * 1000),"p99_ms":\#(percentile(0.99) * 1000),"peak_rss_mib":\#(peakRSSMiB())}"#)
