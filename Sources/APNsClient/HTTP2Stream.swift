import PrintBridgeCore

/// One request on the HTTP/2 session: whose it is, when it started, and
/// the answer as it arrives. A slot in `HTTP2StreamTable`, reused from one
/// stream to the next with its answer's memory.
struct HTTP2Stream {
    /// The request's batch and position in it; nil while the slot is free.
    var batch: (any HTTP2RequestBatch)?
    var position = 0
    /// Times it was refused unprocessed before (`HTTP2Submission.refusals`).
    var refusals = 0
    var id: Int32 = 0
    var started = EpochTime(seconds: 0)
    /// Its HEADERS went out (until then the server cannot have seen it).
    var sent = false
    /// The request's body, and how much of it nghttp2 has taken.
    var body: [UInt8] = []
    var bodyOffset = 0
    /// The answer: status (0 until a final one came), fields, body.
    var status = 0
    var answerFields = HTTP2Fields()
    var answerBody: [UInt8] = []
    /// The next free slot, while this one is free (-1: none).
    var nextFree = -1
}

/// The session's streams, in slots that are reused: no object, hash table
/// entry or answer buffer a request once the table is warm. nghttp2 holds
/// each stream's slot number as the stream's user data
/// (`nghttp2_submit_request`), so a callback finds its stream without a
/// lookup of ours. A slot leaves the table's memory only with the table;
/// answer memory larger than a typical answer is let go when its stream ends.
///
/// Where a `[Int32: HTTP2Stream]` of objects stood, a request cost ~1,500
/// instructions more on the loop thread (an object, its fields' buffer,
/// hashing the id at each callback: callgrind on
/// scripts/bench/apns_benchmark.py --callgrind-sender). Used only on the
/// client's loop thread.
final class HTTP2StreamTable {
    private var slots: UnsafeMutablePointer<HTTP2Stream>
    private var capacity: Int
    /// Slots initialized so far (in use or free).
    private var initialized = 0
    private var firstFree = -1
    /// Streams open now.
    private(set) var openCount = 0

    /// Answer memory kept for the next stream, at most.
    static let keptAnswerBytes = 1024

    init(capacity: Int = 16) {
        self.capacity = max(1, capacity)
        slots = .allocate(capacity: self.capacity)
    }

    deinit {
        slots.deinitialize(count: initialized)
        slots.deallocate()
    }

    /// The slot's stream, to read and change in place.
    subscript(slot: Int) -> UnsafeMutablePointer<HTTP2Stream> {
        precondition(slot >= 0 && slot < initialized, "HTTP2StreamTable: no slot \(slot)")
        return slots + slot
    }

    /// Takes a free slot for a new stream; returns its number.
    func open(_ batch: any HTTP2RequestBatch, position: Int, refusals: Int, body: [UInt8], started: EpochTime) -> Int {
        let slot: Int
        if firstFree >= 0 {
            slot = firstFree
            firstFree = slots[slot].nextFree
        } else {
            if initialized == capacity { grow() }
            slot = initialized
            (slots + slot).initialize(to: HTTP2Stream())
            initialized += 1
        }
        let stream = slots + slot
        stream.pointee.batch = batch
        stream.pointee.position = position
        stream.pointee.refusals = refusals
        stream.pointee.started = started
        stream.pointee.body = body
        stream.pointee.nextFree = -1
        openCount += 1
        return slot
    }

    /// Frees a slot whose stream ended (its answer handed over or not).
    func free(_ slot: Int) {
        let stream = self[slot]
        guard stream.pointee.batch != nil else { return }
        stream.pointee.batch = nil
        stream.pointee.body = []
        stream.pointee.bodyOffset = 0
        stream.pointee.id = 0
        stream.pointee.sent = false
        stream.pointee.status = 0
        if stream.pointee.answerFields.bytes.capacity > Self.keptAnswerBytes {
            stream.pointee.answerFields = HTTP2Fields()
        } else {
            stream.pointee.answerFields.removeAll(keepingCapacity: true)
        }
        if stream.pointee.answerBody.capacity > Self.keptAnswerBytes {
            stream.pointee.answerBody = []
        } else {
            stream.pointee.answerBody.removeAll(keepingCapacity: true)
        }
        stream.pointee.nextFree = firstFree
        firstFree = slot
        openCount -= 1
    }

    /// The open streams' slots, in slot order.
    var openSlots: some Sequence<Int> {
        (0..<initialized).lazy.filter { [slots] in slots[$0].batch != nil }
    }

    /// The slot's number as nghttp2's stream user data (never null), and back.
    static func userData(_ slot: Int) -> UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: slot + 1) }
    static func slot(_ userData: UnsafeMutableRawPointer?) -> Int? { userData.map { Int(bitPattern: $0) - 1 } }

    private func grow() {
        let larger = UnsafeMutablePointer<HTTP2Stream>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: slots, count: initialized)
        slots.deallocate()
        slots = larger
        capacity *= 2
    }
}
