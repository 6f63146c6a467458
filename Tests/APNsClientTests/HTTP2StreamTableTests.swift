@testable import APNsClient
import CNGHTTP2
import PrintBridgeCore
import Testing

/// The session's stream slots: reused, found by nghttp2's user data only
/// while they hold that stream, a retired one kept until nghttp2 is done
/// with its fields, and a fan-out's extra slots let go when idle.
@Suite struct HTTP2StreamTableTests {
    final class Batch: HTTP2RequestBatch {
        func request(_ position: Int, writing fields: inout HTTP2FieldBuffer) -> [UInt8] { [] }
        func answered(_ position: Int, with answer: borrowing HTTP2Answer) {}
        func failed(_ position: Int, with error: HTTP2TransportError) {}
    }

    let batch = Batch()
    let now = EpochTime(seconds: 0)

    @Test func aFreedSlotIsTheNextOneTakenAndForgetsItsStream() {
        let table = HTTP2StreamTable(capacity: 2)
        let first = table.open(batch, position: 0, refusals: 0, started: now)
        table[first].pointee.id = 1
        let second = table.open(batch, position: 1, refusals: 0, started: now)
        table[second].pointee.id = 3
        let third = table.open(batch, position: 2, refusals: 0, started: now)  // past the first capacity
        table[third].pointee.id = 5
        #expect(Set([first, second, third]).count == 3 && table.openCount == 3)
        #expect(table.slot(of: 3, userData: HTTP2StreamTable.userData(second)) == second)

        table[second].pointee.fields.append("apns-id", "x")
        table[second].pointee.sent = true
        table.free(second)
        #expect(table.openCount == 2)
        #expect(table.slot(of: 3, userData: HTTP2StreamTable.userData(second)) == nil, "a freed slot no longer answers for its stream")
        let reused = table.open(batch, position: 3, refusals: 1, started: now)
        #expect(reused == second)
        #expect(table[reused].pointee.fields.count == 0 && !table[reused].pointee.sent && table[reused].pointee.refusals == 1)
        table[reused].pointee.id = 7
        #expect(table.slot(of: 3, userData: HTTP2StreamTable.userData(reused)) == nil, "the old stream's callbacks find another id")
        #expect(table.slot(of: 7, userData: HTTP2StreamTable.userData(reused)) == reused)
        #expect(table.slot(of: 7, userData: nil) == nil)
        #expect(Array(table.openSlots).sorted() == [first, second, third].sorted())
    }

    @Test func aRetiredSlotIsNotReusedUntilFreed() {
        let table = HTTP2StreamTable(capacity: 4)
        let slot = table.open(batch, position: 0, refusals: 0, started: now)
        table[slot].pointee.id = 1
        table[slot].pointee.fields.append(":path", "/3/device/", "ab")
        table.retire(slot)
        #expect(table.openCount == 0 && Array(table.openSlots).isEmpty)
        #expect(table[slot].pointee.batch == nil)
        #expect(table.slot(of: 1, userData: HTTP2StreamTable.userData(slot)) == slot, "still found: nghttp2 may send or drop its HEADERS")
        #expect(table[slot].pointee.fields.count > 0, "its fields stay where nghttp2 points")
        let other = table.open(batch, position: 1, refusals: 0, started: now)
        #expect(other != slot)
        table.free(slot)
        #expect(table.openCount == 1, "freeing a retired slot does not count it closed twice")
        #expect(table.open(batch, position: 2, refusals: 0, started: now) == slot)
    }

    @Test func anIdleTableKeepsAHundredAndTwentyEightSlots() {
        let table = HTTP2StreamTable()
        let slots = (0..<300).map { table.open(batch, position: $0, refusals: 0, started: now) }
        table.trim()
        #expect(table.openCount == 300, "nothing is trimmed while streams are open")
        for slot in slots { table.free(slot) }
        table.trim()
        let again = (0..<300).map { table.open(batch, position: $0, refusals: 0, started: now) }
        #expect(Set(again.prefix(HTTP2StreamTable.keptIdle)) == Set(0..<HTTP2StreamTable.keptIdle), "the kept slots come first")
        #expect(Set(again).count == 300)
    }

    @Test func largeAnswersDoNotStayInTheSlot() {
        let table = HTTP2StreamTable()
        let slot = table.open(batch, position: 0, refusals: 0, started: now)
        table[slot].pointee.answerBody = Array(repeating: 1, count: 10_000)
        table[slot].pointee.answerFields.append("x", String(repeating: "v", count: 5_000))
        table.free(slot)
        #expect(table[slot].pointee.answerBody.capacity <= HTTP2StreamTable.keptBytes)
        #expect(table[slot].pointee.answerFields.capacity <= HTTP2StreamTable.keptBytes)
    }
}

/// A stream slot's fields, written in place: the same bytes as `HTTP2Fields`.
@Suite struct HTTP2FieldBufferTests {
    @Test func writesWhatHTTP2FieldsWritesAcrossGrowth() {
        var buffer = HTTP2FieldBuffer()
        var fields = HTTP2Fields()
        for index in 0..<50 {
            buffer.append(":path", "/3/device/", String(repeating: "ab", count: index))
            fields.append(":path", "/3/device/", String(repeating: "ab", count: index))
            buffer.append("apns-id", "id-\(index)", neverIndexed: true)
            fields.append("apns-id", "id-\(index)", neverIndexed: true)
            buffer.append("apns-priority", decimal: index - 25)
            fields.append("apns-priority", decimal: index - 25)
        }
        var shared = HTTP2Fields()
        shared.append("apns-topic", "com.example")
        buffer.append(contentsOf: shared)
        fields.append(contentsOf: shared)
        #expect(Array(buffer.bytes) == fields.bytes)
        buffer.removeAll()
        #expect(buffer.count == 0 && buffer.capacity > 0)
        buffer.append("a", "b")
        #expect(Array(buffer.bytes) == { var one = HTTP2Fields(); one.append("a", "b"); return one.bytes }())
    }

    @Test func aLongValueIsCutAsHTTP2FieldsCutsIt() {
        var buffer = HTTP2FieldBuffer()
        buffer.append("x", "/", String(repeating: "v", count: 70_000))
        var fields = HTTP2Fields()
        fields.append("x", "/", String(repeating: "v", count: 70_000))
        #expect(Array(buffer.bytes) == fields.bytes)
        var values: [Int] = []
        HTTP2Fields.forEach(in: buffer.bytes) { _, value, _ in values.append(value.count) }
        #expect(values == [65535])
    }
}

/// nghttp2's memory pool (CNGHTTP2/shim.h): blocks come back by size class,
/// realloc keeps the contents, calloc zeroes, and what it keeps is bounded.
@Suite struct NGHTTP2PoolTests {
    @Test func blocksAreReusedByClassAndKeepTheirContents() throws {
        let pool = try #require(pb_nghttp2_pool_new())
        defer { pb_nghttp2_pool_delete(pool) }
        let mem = pool.pointee.mem
        let first = try #require(mem.malloc(100, mem.mem_user_data))
        mem.free(first, mem.mem_user_data)
        let again = try #require(mem.malloc(120, mem.mem_user_data))
        #expect(again == first, "a freed block of the same class (97 to 128 bytes) is taken again")
        memset(again, 0x5A, 90)
        let grown = try #require(mem.realloc(again, 5_000, mem.mem_user_data))
        #expect(UnsafeRawBufferPointer(start: grown, count: 90).allSatisfy { $0 == 0x5A }, "realloc keeps the contents")
        let same = try #require(mem.realloc(grown, 4_000, mem.mem_user_data))
        #expect(same == grown, "a smaller size fits where it is")
        mem.free(same, mem.mem_user_data)
        let zeroed = try #require(mem.calloc(16, 8, mem.mem_user_data))
        #expect(UnsafeRawBufferPointer(start: zeroed, count: 128).allSatisfy { $0 == 0 })
        mem.free(zeroed, mem.mem_user_data)
        #expect(mem.calloc(Int.max, 2, mem.mem_user_data) == nil, "an overflowing size is refused")
        #expect(mem.malloc(0, mem.mem_user_data) != nil)
        mem.free(nil, mem.mem_user_data)
    }

    @Test func whatItKeepsIsBounded() throws {
        let pool = try #require(pb_nghttp2_pool_new())
        defer { pb_nghttp2_pool_delete(pool) }
        let mem = pool.pointee.mem
        let blocks = (0..<2_000).map { _ in mem.malloc(1_000, mem.mem_user_data)! }
        for block in blocks { mem.free(block, mem.mem_user_data) }
        #expect(pool.pointee.kept <= Int(PB_POOL_KEPT))
        #expect(pool.pointee.kept > 0)
    }
}
