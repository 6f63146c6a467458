// Instructions per event on the agent's own path, for callgrind
// (scripts/bench/path_instructions.py runs it and reads the counts):
//
//   ignored    one household `state_changed` frame, as the HA link hands it
//              over, to the decision that no printer cares (HAFrameReader:
//              the byte filter, the matcher's look-up).
//   coalesced  the same events eight to a frame, as HA's writer joins what it
//              has queued when busy (a JSON array): each skipped on its own.
//   parsed     the reference: the same lone frames read by the full JSON
//              parse (the reader with its filter off), as every frame was
//              before the filter.
//
// The frames come from a recording (scripts/bench/generate_events.py): its
// results (the entity registry, get_states) teach the matcher first, as
// they do in the agent; then the household events are read `rounds` times
// the way MODE says. The cost of one event is the difference between the
// whole program's instructions at two round counts, divided by the events
// the extra round read: setup and start-up cancel out, whatever the
// compiler inlines.
//
// usage: PathInstructions FILE ignored|coalesced|parsed ROUNDS
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// One frame through the reader, as the HA link hands it over: whether it
/// was skipped whole, and how many messages it gave.
@inline(never)
func read(_ reader: inout HAFrameReader, _ frame: UnsafeRawBufferPointer) -> Int {
    ((try? reader.messages(in: frame)) ?? nil)?.count ?? 0
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
guard arguments.count == 4, let rounds = Int(arguments[3]), rounds >= 0,
    ["ignored", "coalesced", "parsed"].contains(arguments[2])
else { fail("usage: PathInstructions FILE ignored|coalesced|parsed ROUNDS", 64) }
let mode = arguments[2]

var reader = HAFrameReader()
var household: [[UInt8]] = []
var taught = 0
for line in lines(of: arguments[1]) {
    var copy = reader
    let skipped = line.withUnsafeBytes { (try? copy.messages(in: $0)) == .some(nil) }
    if skipped {
        household.append(line)
        continue
    }
    // Not skipped: a result or a printer's event; it teaches the matcher.
    guard let messages = line.withUnsafeBytes({ try? reader.messages(in: $0) }) ?? nil else { continue }
    for message in messages {
        if case .result = message { taught += 1 }
        _ = reader.inputs(from: message)
    }
}
guard !household.isEmpty else { fail("no household events in \(arguments[1])", 65) }

let perFrame = 8
var frames = household
switch mode {
case "coalesced":
    frames = stride(from: 0, to: household.count - perFrame + 1, by: perFrame).map { start in
        [UInt8(ascii: "[")] + Array(household[start..<start + perFrame].joined(separator: [UInt8(ascii: ",")]))
            + [UInt8(ascii: "]")]
    }
case "parsed":
    reader.usesFrameFilter = false
default:
    break
}
let eventsPerRound = mode == "coalesced" ? frames.count * perFrame : frames.count
let before = reader.statistics
var messages = 0
for _ in 0..<rounds {
    for frame in frames { messages += frame.withUnsafeBytes { read(&reader, $0) } }
}
let skipped = reader.statistics.filteredEvents - before.filteredEvents
let bytes = frames.reduce(0) { $0 + $1.count }
print("\(mode): \(eventsPerRound) events a round in \(frames.count) frames (\(bytes / max(1, eventsPerRound)) bytes an event), \(rounds) rounds: \(skipped) skipped unparsed, \(messages) messages read; \(taught) results taught the matcher")
// Every event must have gone the way the mode names, or the figure means nothing.
if mode == "parsed" ? messages != eventsPerRound * rounds : skipped != eventsPerRound * rounds {
    fail("not every household event went the \(mode) way", 1)
}
