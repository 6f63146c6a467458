import Testing

@testable import PrintBridgeCore

/// The frame filter's set of known printer entity ids, asked with raw bytes.
struct EntityIDSetTests {
    private func contains(_ set: EntityIDSet, _ id: String) -> Bool {
        var id = id
        return id.withUTF8 { set.contains(UnsafeRawBufferPointer($0)) }
    }

    @Test func findsEveryIDOfEveryLengthAndNothingElse() {
        // Lengths below, at and above one word, and ids that differ only in
        // their last byte, their first byte, or their length.
        let ids = [
            "a.b", "sensor.x", "sensor.xy", "sensor.x1c_print_status", "sensor.x1c_print_statuz",
            "tensor.x1c_print_status", "sensor.x1c_print_status_2", "sensor.abcdefghabcdefgh",
        ]
        let set = EntityIDSet(ids)
        for id in ids { #expect(contains(set, id), "\(id)") }
        for other in [
            "", "a.c", "sensor.", "sensor.z", "sensor.x1c_print_statu", "sensor.x1c_print_status_", "sensor.x1c_print_status_3",
            "sensor.abcdefghabcdefgi", "light.kitchen",
        ] {
            #expect(!contains(set, other), "\(other)")
        }
    }

    @Test func anEmptySetHoldsNothing() {
        let set = EntityIDSet([String]())
        #expect(set.isEmpty)
        #expect(!contains(set, "sensor.x1c_print_status"))
    }

    @Test func manyIDsAndTheirNeighboursAllAnswerRight() {
        // More ids than one table size, so probes wrap and collide.
        let ids = (0..<500).map { "sensor.printer_\($0)_nozzle_temperature" }
        let set = EntityIDSet(ids + ids)  // duplicates are kept once
        for id in ids { #expect(contains(set, id)) }
        for n in 500..<1000 { #expect(!contains(set, "sensor.printer_\(n)_nozzle_temperature")) }
    }
}
