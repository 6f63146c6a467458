// The JSON reader against the ecosystem's (docs/BEHAVIOUR.md, "Why a JSON
// reader of our own"): one household event as HA sends it (~1.1 KB) read N
// times by PrintBridge's JSONParser into a JSONValue, and by
// FoundationEssentials' JSONDecoder into an any-JSON Decodable enum (HA's
// attributes are free-form, so a reader must make a value of any shape).
// Prints the time of each; for instructions, run it under callgrind with a
// small N and one reader at a time:
//
// usage: JSONComparison [N] [parser|decoder|both]
//   valgrind --tool=callgrind .build/release/JSONComparison 2000 parser   (less a run with N = 0)
import FoundationEssentials
import PrintBridgeCore

indirect enum AnyJSON: Decodable {
    case null, bool(Bool), number(Double), string(String), array([AnyJSON]), object([String: AnyJSON])
    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null } else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) } else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([AnyJSON].self) { self = .array(a) } else { self = .object(try c.decode([String: AnyJSON].self)) }
    }
}
let event = #"{"id":2,"type":"event","event":{"event_type":"state_changed","data":{"entity_id":"sensor.living_room_temperature","old_state":{"entity_id":"sensor.living_room_temperature","state":"21.4","attributes":{"state_class":"measurement","unit_of_measurement":"°C","device_class":"temperature","friendly_name":"Living room Temperature"},"last_changed":"2026-11-26T06:26:50.754603+00:00","last_reported":"2026-11-26T06:26:50.754603+00:00","last_updated":"2026-11-26T06:26:50.754603+00:00","context":{"id":"01JDQ4ZB2K1V3Y6W8X9Z0A1B2C","parent_id":null,"user_id":null}},"new_state":{"entity_id":"sensor.living_room_temperature","state":"21.5","attributes":{"state_class":"measurement","unit_of_measurement":"°C","device_class":"temperature","friendly_name":"Living room Temperature"},"last_changed":"2026-11-26T06:27:50.754603+00:00","last_reported":"2026-11-26T06:27:50.754603+00:00","last_updated":"2026-11-26T06:27:50.754603+00:00","context":{"id":"01JDQ4ZB2K1V3Y6W8X9Z0A1B2D","parent_id":null,"user_id":null}}},"origin":"LOCAL","time_fired":"2026-11-26T06:27:50.754603+00:00","context":{"id":"01JDQ4ZB2K1V3Y6W8X9Z0A1B2D","parent_id":null,"user_id":null}}}"#
let bytes = Array(event.utf8)
let data = Data(bytes)
let n = Int(CommandLine.arguments.dropFirst().first ?? "100000") ?? 100000
let which = CommandLine.arguments.dropFirst(2).first ?? "both"
func time(_ label: String, _ body: () throws -> Void) rethrows {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("\(label): \(n) events (\(bytes.count) bytes) in \(seconds) s = \((seconds / Double(n) * 1e8).rounded() / 100) µs each")
}
var sink = 0
if which != "decoder" {
    try time("PrintBridge JSONParser") { for _ in 0..<n { if case .object(let o) = try JSONParser.parse(bytes) { sink &+= o.count } } }
}
if which != "parser" {
    let decoder = JSONDecoder()
    try time("FoundationEssentials JSONDecoder (any-JSON enum)") { for _ in 0..<n { if case .object(let o) = try decoder.decode(AnyJSON.self, from: data) { sink &+= o.count } } }
}
print(sink)
