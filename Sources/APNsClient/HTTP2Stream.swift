import PrintBridgeCore

/// One request on the HTTP/2 session: whose it is, when it started, and
/// the answer as it arrives. A slot in `HTTP2StreamTable`, reused from one
/// stream to the next with its answer's memory.
struct HTTP2Stream: ~Copyable {
    /// The request's batch and position in it; nil while the slot is free.
    var batch: (any HTTP2RequestBatch)?
    var position = 0
    /// Times it was refused unprocessed before (`HTTP2Submission.refusals`).
    var refusals = 0
    var id: Int32 = 0
    var started = EpochTime(seconds: 0)
    /// Its HEADERS went out (until then the server cannot have seen it).
    var sent = false
    /// The request's fields, which nghttp2 points at until its HEADERS
    /// frame went out or was dropped (HeaderScratch), kept for the slot's
    /// next streams.
    var fields = HTTP2FieldBuffer()
    /// Given up before its HEADERS went out: the slot waits for nghttp2 to
    /// send or drop them before it is reused.
    var retired = false
    /// The request's body, and how much of it nghttp2 has taken.
    var body: [UInt8] = []
    var bodyOffset = 0
    /// The answer: status (0 until a final one came), fields, body.
    var status = 0
    var answerFields = HTTP2FieldBuffer()
    var answerBody: [UInt8] = []
    /// The next free slot, while this one is free (-1: none).
    var nextFree = -1
}

/// The session's streams, in slots that are reused: no object, hash table
/// entry or request or answer buffer a request once the table is warm.
/// nghttp2 holds each stream's slot number as the stream's user data
/// (`nghttp2_submit_request`), so a callback finds its stream without a
/// lookup of ours (and checks the slot still holds that stream's id).
/// Memory larger than a typical request or answer is let go when its stream
/// ends, and slots beyond `keptIdle` when the connection has nothing in
/// flight (`trim`): a fan-out's thousand slots do not stay.
///
/// Where a `[Int32: HTTP2Stream]` of objects stood, a request cost ~1,500
/// instructions more on the loop thread (an object, its fields' buffer,
/// hashing the id at each callback: callgrind on
/// scripts/bench/apns_benchmark.py --callgrind-sender). Used only on the
/// client's loop thread.
final class HTTP2StreamTable {
    // @exclusivity(unchecked): the loop thread's own (HTTP2Client says why).
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<HTTP2Stream>
    @exclusivity(unchecked) private var capacity: Int
    /// Slots initialized so far (in use or free).
    @exclusivity(unchecked) private var initialized = 0
    @exclusivity(unchecked) private var firstFree = -1
    /// Streams open now.
    @exclusivity(unchecked) private(set) var openCount = 0

    /// Request or answer memory kept for the slot's next stream, at most.
    static let keptBytes = 2048
    /// Slots kept when nothing is in flight.
    static let keptIdle = 128
    /// Slots given up before their HEADERS went out, not yet free.
    @exclusivity(unchecked) private var retiredCount = 0

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
    func open(_ batch: any HTTP2RequestBatch, position: Int, refusals: Int, started: EpochTime) -> Int {
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
        stream.pointee.nextFree = -1
        openCount += 1
        return slot
    }

    /// Gives a stream up before its HEADERS went out: it is no longer open,
    /// but its slot (whose fields nghttp2 may still read) is not reused
    /// until `free`, when nghttp2 has sent or dropped them.
    func retire(_ slot: Int) {
        let stream = self[slot]
        guard stream.pointee.batch != nil else { return }
        stream.pointee.batch = nil
        stream.pointee.body = []
        stream.pointee.retired = true
        retiredCount += 1
        openCount -= 1
    }

    /// Frees a slot whose stream ended (its answer handed over or not), or
    /// a retired one whose HEADERS nghttp2 has done with.
    func free(_ slot: Int) {
        let stream = self[slot]
        if stream.pointee.retired {
            stream.pointee.retired = false
            retiredCount -= 1
        } else {
            guard stream.pointee.batch != nil else { return }
            stream.pointee.batch = nil
            stream.pointee.body = []
            openCount -= 1
        }
        stream.pointee.bodyOffset = 0
        stream.pointee.id = 0
        stream.pointee.sent = false
        stream.pointee.status = 0
        stream.pointee.fields.removeAll(keepingAtMost: Self.keptBytes)
        stream.pointee.answerFields.removeAll(keepingAtMost: Self.keptBytes)
        if stream.pointee.answerBody.capacity > Self.keptBytes {
            stream.pointee.answerBody = []
        } else {
            stream.pointee.answerBody.removeAll(keepingCapacity: true)
        }
        stream.pointee.nextFree = firstFree
        firstFree = slot
    }

    /// With nothing in flight and nothing retired, lets go of the slots
    /// beyond `keptIdle` and their memory.
    func trim() {
        guard openCount == 0, retiredCount == 0, initialized > Self.keptIdle else { return }
        (slots + Self.keptIdle).deinitialize(count: initialized - Self.keptIdle)
        initialized = Self.keptIdle
        let smaller = UnsafeMutablePointer<HTTP2Stream>.allocate(capacity: Self.keptIdle)
        smaller.moveInitialize(from: slots, count: initialized)
        slots.deallocate()
        slots = smaller
        capacity = Self.keptIdle
        firstFree = -1
        for slot in (0..<initialized).reversed() {
            slots[slot].nextFree = firstFree
            firstFree = slot
        }
    }

    /// The slot of `id`'s stream from nghttp2's user data, if the slot
    /// still holds that stream (open or retired).
    func slot(of id: Int32, userData: UnsafeMutableRawPointer?) -> Int? {
        guard let slot = Self.slot(userData), slot >= 0, slot < initialized, slots[slot].id == id else { return nil }
        return slot
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
