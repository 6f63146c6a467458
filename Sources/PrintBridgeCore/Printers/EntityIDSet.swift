/// A fixed set of entity ids, asked about raw UTF-8 bytes without making a
/// String: the frame filter's "is this one of the printers' known entities"
/// for every household event (`EntityMatcher.isRelevant`).
///
/// Why not `Set<String>`: asking it costs a String made from the bytes and a
/// SipHash of them, about 1,100 instructions for a 30-byte id (callgrind,
/// `scripts/bench/path_instructions.py`); the three dictionaries the matcher
/// asked cost 2,800. Here the id is hashed eight bytes at a time and compared
/// only where its hash lands: ~60. The ids are the printers' own (a few
/// dozen, from the settings file, HA's registry and learned status
/// entities), so the hash needs no protection against chosen collisions: a
/// household id that collides costs one comparison more.
struct EntityIDSet: Sendable {
    /// The ids, end to end.
    private var bytes: [UInt8] = []
    /// Each id's start in `bytes` and its length.
    private var entries: [(start: Int32, count: Int32)] = []
    /// Open addressing: an index into `entries`, or -1.
    private var slots: [Int32] = []
    private var mask = 0

    init<S: Sequence>(_ ids: S) where S.Element == String {
        var unique = Set<String>()
        for id in ids where unique.insert(id).inserted {
            entries.append((Int32(bytes.count), Int32(id.utf8.count)))
            bytes += id.utf8
        }
        guard !entries.isEmpty else { return }
        var capacity = 8
        while capacity < entries.count * 2 { capacity <<= 1 }
        slots = [Int32](repeating: -1, count: capacity)
        mask = capacity - 1
        bytes.withUnsafeBytes { all in
            for (index, entry) in entries.enumerated() {
                let id = UnsafeRawBufferPointer(rebasing: all[Int(entry.start)..<Int(entry.start + entry.count)])
                var slot = Self.hash(id) & mask
                while slots[slot] >= 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(index)
            }
        }
    }

    var isEmpty: Bool { entries.isEmpty }

    func contains(_ id: UnsafeRawBufferPointer) -> Bool {
        guard !entries.isEmpty else { return false }
        var slot = Self.hash(id) & mask
        return slots.withUnsafeBufferPointer { slots in
            entries.withUnsafeBufferPointer { entries in
                bytes.withUnsafeBytes { all in
                    while true {
                        let index = slots[slot]
                        if index < 0 { return false }
                        let entry = entries[Int(index)]
                        if Int(entry.count) == id.count,
                            Self.equal(UnsafeRawBufferPointer(rebasing: all[Int(entry.start)...]), id)
                        {
                            return true
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
    }

    /// Eight bytes at a time, each word mixed in by a multiply and a shift
    /// (the length mixed in first; the last, partial word read as the id's
    /// last eight bytes when there are that many).
    @inline(__always)
    static func hash(_ id: UnsafeRawBufferPointer) -> Int {
        let count = id.count
        var h = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        var i = 0
        while i + 8 <= count {
            h = (h ^ id.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
            i += 8
        }
        if i < count {
            var last: UInt64 = 0
            if count >= 8 {
                last = id.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            } else {
                for k in 0..<count { last |= UInt64(id[k]) << (8 * UInt64(k)) }
            }
            h = (h ^ last) &* 0x94D0_49BB_1331_11EB
            h ^= h >> 29
        }
        return Int(truncatingIfNeeded: h)
    }

    /// `id.count` bytes of `stored` (which holds at least that many) equal `id`.
    @inline(__always)
    private static func equal(_ stored: UnsafeRawBufferPointer, _ id: UnsafeRawBufferPointer) -> Bool {
        let count = id.count
        guard count >= 8 else {
            for k in 0..<count where stored[k] != id[k] { return false }
            return true
        }
        var i = 0
        while i + 8 <= count {
            if stored.loadUnaligned(fromByteOffset: i, as: UInt64.self) != id.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                return false
            }
            i += 8
        }
        return i == count
            || stored.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                == id.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }
}
