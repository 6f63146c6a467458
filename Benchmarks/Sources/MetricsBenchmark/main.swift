// The cost of the agent's metrics (docs/BEHAVIOUR.md, "Health and metrics"):
// an `AgentMetrics` with every family populated as a busy agent's is, then N
// times one thing the agent does to it. Only the public API, so the same
// program measures any implementation behind it.
//
//   push    a push's end counted (`metrics.push`: the labeled counter, and
//           the status page's list of recent pushes)
//   auth    a refused API request counted (one labeled counter)
//   render  /metrics rendered (`exposition()`)
//   none    the setup only, to subtract
//   print   /metrics once, printed (what the others measure)
//
// Prints the time; for instructions, run it under callgrind, with N and
// with `none`, and divide the difference by N:
//
// usage: MetricsBenchmark N push|auth|render|none|print
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null .build/deploy-benchmarks/release/MetricsBenchmark 10000 push
import ControlAPI
import PrintBridgeCore
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments.dropFirst()
let n = Int(arguments.first ?? "10000") ?? 10000
let mode = arguments.dropFirst().first ?? "none"

func push(_ kind: Push.Kind, _ event: Push.Event) -> Push {
    Push(
        kind: kind, event: event, printerPrefix: "x1c", deviceID: "d", token: String(repeating: "ab", count: 32),
        tokenKind: .device, topic: "t", priority: 10, collapseID: nil, expiration: EpochTime(seconds: 0),
        payload: Array("{}".utf8), createdAt: EpochTime(seconds: 0))
}

let metrics = AgentMetrics(clock: ManualClock(EpochTime(seconds: 1_000_000)), apnsMode: "configured")
metrics.readCounts { .init(eventsReceived: 123_456, eventsMatched: 2_345, lastEvent: 999_990, tokenRenewals: 7) }
metrics.haConnected()
metrics.haDisconnected()
metrics.haConnected()
metrics.update(printers: 3, devices: 5)
metrics.outbox(count: 2, oldest: EpochTime(seconds: 999_900))
// Every series a day of a three-printer farm makes.
let pushes = [
    push(.alert, .started), push(.alert, .complete), push(.alert, .paused), push(.alert, .failed),
    push(.liveActivity, .update), push(.liveActivity, .end), push(.liveActivity, .start), push(.background, .history),
]
for (index, made) in pushes.enumerated() {
    metrics.push(made, outcome: "delivered")
    metrics.attempt(answered: true, apnsSeconds: 0.01 * Double(index + 1))
}
metrics.push(pushes[0], outcome: "rejected", reason: "BadDeviceToken")
metrics.push(pushes[4], outcome: "superseded")
metrics.push(pushes[7], outcome: "limited")
metrics.attempt(answered: false, apnsSeconds: 30)
metrics.action("pause", result: "pressed")
metrics.action("resume", result: "does_not_fit")
metrics.snapshot(outcome: "taken")
metrics.snapshot(outcome: "none", reason: "timeout")
metrics.authFailure(outcome: "refused")
metrics.authFailure(outcome: "throttled")

let start = ContinuousClock.now
var sink = 0
switch mode {
case "push":
    let delivered = pushes[1]
    for _ in 0..<n { metrics.push(delivered, outcome: "delivered") }
case "auth":
    for _ in 0..<n { metrics.authFailure(outcome: "refused") }
case "render":
    for _ in 0..<n { sink &+= metrics.exposition().utf8.count }
case "none":
    break
case "print":
    print(metrics.exposition(), terminator: "")
    exit(0)
default:
    print("usage: MetricsBenchmark N push|auth|render|none|print")
    exit(64)
}
let elapsed = ContinuousClock.now - start
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print("\(mode): \(n) in \(seconds) s = \((seconds / Double(max(n, 1)) * 1e9).rounded()) ns each")
if mode == "render" { print("exposition: \(sink / max(n, 1)) bytes") }
