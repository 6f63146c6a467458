// Instructions per event on the agent's own path, for callgrind
// (scripts/bench/path_instructions.py runs it and reads the counts):
//
//   parsed     one household `state_changed` frame (an older HA's, or a
//              recording's) read by HAFrameReader: the JSON parse and the
//              matcher's look-up. (A plain report: the byte filter that
//              skipped such frames, and its target, went with issue 50.)
//   alert      a printer's frames, as ha-bambulab sends a print's start and
//              end, through the reader, the pipeline (planner, payloads) and
//              APNsSender's request for each push (path, headers, JSON body;
//              HPACK and TLS are nghttp2's and OpenSSL's): per push.
//
// The frames come from a recording (scripts/bench/generate_events.py): its
// results (the entity registry, get_states) teach the matcher first, as
// they do in the agent; then the household events are read `rounds` times
// (or a print's frames, for alert). The cost of one event is the difference between the
// whole program's instructions at two round counts, divided by the events
// the extra round read: setup and start-up cancel out, whatever the
// compiler inlines.
//
// usage: PathInstructions FILE parsed|alert ROUNDS
import APNsClient
import FoundationEssentials
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// One frame through the reader, as the HA link hands it over: how many
/// messages it gave, and what they meant to the printers.
@inline(never)
func read(_ reader: inout HAFrameReader, _ frame: UnsafeRawBufferPointer) -> (messages: Int, inputs: Int) {
    let messages = (try? reader.messages(in: frame)) ?? []
    return (messages.count, messages.reduce(0) { $0 + reader.inputs(from: $1).count })
}

func fail(_ message: String, _ code: Int32) -> Never {
    let text = "PathInstructions: " + message + "\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    exit(code)
}

func lines(of path: String) -> [[UInt8]] {
    guard let file = fopen(path, "r") else {
        fail("cannot read \(path)", 66)
    }
    defer { fclose(file) }
    var result: [[UInt8]] = []
    var line: UnsafeMutablePointer<CChar>? = nil
    var capacity = 0
    while true {
        let count = getline(&line, &capacity, file)
        if count < 0 { break }
        var bytes = Array(UnsafeRawBufferPointer(start: line, count: count))
        while bytes.last == 10 || bytes.last == 13 { bytes.removeLast() }
        if !bytes.isEmpty { result.append(bytes) }
    }
    free(line)
    return result
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let rounds = Int(arguments[3]), rounds >= 0, ["parsed", "alert"].contains(arguments[2])
else { fail("usage: PathInstructions FILE parsed|alert ROUNDS", 64) }
let mode = arguments[2]

var reader = HAFrameReader()
var household: [[UInt8]] = []
var taught = 0
for line in lines(of: arguments[1]) {
    var copy = reader
    guard let messages = line.withUnsafeBytes({ try? copy.messages(in: $0) }) else { continue }
    let events = messages.allSatisfy { if case .event = $0 { true } else { false } }
    if events && messages.allSatisfy({ copy.inputs(from: $0).isEmpty }) {
        household.append(line)
        continue
    }
    // A result or a printer's event: it teaches the matcher.
    reader = copy
    for message in messages {
        if case .result = message { taught += 1 }
        _ = reader.inputs(from: message)
    }
}
guard !household.isEmpty else { fail("no household events in \(arguments[1])", 65) }

if mode == "alert" {
    alertPath(reader: reader, rounds: rounds)
    exit(0)
}

var messages = 0
var inputs = 0
for _ in 0..<rounds {
    for frame in household {
        let (read, made) = frame.withUnsafeBytes { read(&reader, $0) }
        messages += read
        inputs += made
    }
}
let bytes = household.reduce(0) { $0 + $1.count }
print("parsed: \(household.count) events a round (\(bytes / household.count) bytes an event), \(rounds) rounds: \(messages) messages read, \(inputs) printer inputs; \(taught) results taught the matcher; counted \(household.count * rounds)")
// Every event must have been read and given nothing, or the figure means nothing.
if messages != household.count * rounds || inputs != 0 { fail("not every household event was read to nothing", 1) }

/// A print's frames for the printer the recording's registry taught: status
/// running (with progress), then finish; each round `prints` prints, made
/// before anything is counted (made for two rounds whatever `rounds` is, so
/// the difference between two runs is the reading alone).
func alertPath(reader start: HAFrameReader, rounds: Int) {
    let status = "sensor.x1c_00m09a350100123_print_status"
    let progress = "sensor.x1c_00m09a350100123_print_progress"
    func frame(_ entity: String, _ old: String, _ new: String, at seconds: Int) -> [UInt8] {
        let time = ISO8601.format(EpochTime(seconds: 1_795_000_000 + Double(seconds)))
        return Array(#"{"id":4,"type":"event","event":{"event_type":"state_changed","data":{"entity_id":"\#(entity)","old_state":{"entity_id":"\#(entity)","state":"\#(old)","attributes":{},"last_changed":"\#(time)","last_updated":"\#(time)","context":{"id":"01JD5M948HMRJXV67DVWETNXST","parent_id":null,"user_id":null}},"new_state":{"entity_id":"\#(entity)","state":"\#(new)","attributes":{},"last_changed":"\#(time)","last_reported":"\#(time)","last_updated":"\#(time)","context":{"id":"01JD6PQ7HEV1H1BHKNP0B9S491","parent_id":null,"user_id":null}}},"origin":"LOCAL","time_fired":"\#(time)","context":{"id":"01JD6PQ7HEV1H1BHKNP0B9S491","parent_id":null,"user_id":null}}}"#.utf8)
    }
    let prints = 200
    var rounds2: [[(frame: [UInt8], time: EpochTime)]] = []
    var second = 0
    for _ in 0..<2 {
        var round: [(frame: [UInt8], time: EpochTime)] = []
        for _ in 0..<prints {
            round.append((frame(status, "idle", "running", at: second), EpochTime(seconds: 1_795_000_000 + Double(second))))
            for percent in stride(from: 10, through: 100, by: 30) {
                second += 60
                round.append((frame(progress, "\(percent - 30)", "\(percent)", at: second), EpochTime(seconds: 1_795_000_000 + Double(second))))
            }
            second += 60
            round.append((frame(status, "running", "finish", at: second), EpochTime(seconds: 1_795_000_000 + Double(second))))
            second += 3600
            round.append((frame(status, "finish", "idle", at: second), EpochTime(seconds: 1_795_000_000 + Double(second))))
            second += 600
        }
        rounds2.append(round)
    }
    let token = String(repeating: "ab", count: 32)
    let devices = [Device(id: "phone", apnsToken: token, activityTokens: ["x1c_00m09a350100123": String(repeating: "cd", count: 40)])]
    let clock = ManualClock()
    var reader = start
    var pipeline = PrinterPipeline(devices: devices, clock: clock)
    let jwt = String(repeating: "j", count: 180)  // a provider token is signed once an hour, not per push
    var pushes = 0
    var alerts = 0
    var bytes = 0
    for round in rounds2.prefix(rounds) {
        for (frame, time) in round {
            pushes += sendable(frame, time, &reader, &pipeline, clock, jwt, &alerts, &bytes)
        }
    }
    print("alert: \(prints) prints a round, \(rounds) rounds: \(pushes) pushes (\(alerts) alerts), \(bytes) request bytes; counted \(pushes)")
    if rounds > 0 && alerts < prints * rounds * 2 { fail("fewer alerts than two a print: \(alerts)", 1) }
}

/// One frame to the APNs requests it makes (the pushes due before it first,
/// as the daemon's timer would have sent them).
@inline(never)
func sendable(
    _ frame: [UInt8], _ time: EpochTime, _ reader: inout HAFrameReader, _ pipeline: inout PrinterPipeline,
    _ clock: ManualClock, _ jwt: String, _ alerts: inout Int, _ bytes: inout Int
) -> Int {
    var pushes = pipeline.fireDue(upTo: time).pushes
    clock.set(time)
    let messages = frame.withUnsafeBytes { (try? reader.messages(in: $0)) ?? [] }
    for message in messages {
        for input in reader.inputs(from: message) { pushes += pipeline.handle(input).pushes }
    }
    for push in pushes {
        let request = APNsSender.request(for: push, apnsID: push.apnsID ?? UUID().uuidString.lowercased(), authorization: "bearer " + jwt)
        bytes += request.body.count + request.path.utf8.count
            + request.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        if push.kind == .alert { alerts += 1 }
    }
    return pushes.count
}
