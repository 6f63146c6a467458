/// A TZif file (RFC 8536, versions 1 to 4), as tzdata installs them under
/// /usr/share/zoneinfo: the transitions and the local time types; for
/// version 2 and later the 64-bit data block (the version 1 block before it
/// is skipped) and the footer's POSIX TZ rule for the instants after the last
/// transition. Only what offsets need is kept: abbreviations, the standard/
/// wall and UT/local indicators and leap-second records are checked for size
/// and skipped (zoneinfo's "right/" files, the only ones with leap seconds,
/// are refused by name in ZoneRules).
///
/// Bytes from anywhere: every count is checked against the bytes that are
/// actually there before anything is allocated, so a file that lies costs
/// nothing; whatever is not a valid file is nil.
struct TZif: Sendable, Equatable {
    /// A local time type (RFC 8536's ttinfo): its offset, seconds east of UTC.
    struct LocalTimeType: Sendable, Equatable {
        let utcOffset: Int32
        let isDaylight: Bool
    }

    /// 1 to 4; a later version's digit (5...9) as written, its data read as version 4's.
    let version: Int
    /// Transition instants (seconds since 1970-01-01T00:00:00Z), strictly ascending.
    let transitions: [Int64]
    /// For each transition, the index of its type in `types`.
    let transitionTypes: [UInt8]
    /// At least one; type 0 is local time before the first transition.
    let types: [LocalTimeType]
    /// The footer's rule for the instants after the last transition (and for
    /// all instants when there is none); nil when the footer is empty or the
    /// file is version 1.
    let footer: POSIXTimeZone?

    /// The largest file read (tzdata's largest is ~3 KB; RFC 8536 sets no limit).
    static let maximumSize = 1 << 20

    /// RFC 8536: "SHOULD be greater than -25 hours and less than 26 hours";
    /// the parser requires it, so every offset of a parsed zone is in this range
    /// (a footer's too: its hours are at most 24, summer time 25).
    static let utcOffsets: ClosedRange<Int> = -89_999...93_599

    /// The file's bytes, or nil when they are not a valid TZif file: a bad
    /// magic or version, a header that does not fit or whose counts the bytes
    /// do not hold, no local time type, a transition to a type that does not
    /// exist, transitions out of order, an offset outside ±25 h (+26 h), an
    /// abbreviation index past the abbreviations, or a footer that is neither
    /// empty nor a POSIX TZ rule (POSIXTimeZone).
    ///
    /// Internal: ZoneRules reads it; the fuzz target (Fuzz/Sources/FuzzTZif)
    /// calls it through `@testable import`.
    static func parse(_ bytes: [UInt8]) -> TZif? {
        guard bytes.count <= maximumSize else { return nil }
        var reader = Reader(bytes: bytes)
        guard var header = reader.header() else { return nil }
        let version = header.version
        if version >= 2 {
            // The version 1 block (32-bit times) comes first; its data is skipped.
            guard reader.skip(header.dataSize(timeSize: 4)), let second = reader.header(),
                second.version == version
            else { return nil }
            header = second
        }
        let timeSize = version >= 2 ? 8 : 4
        guard header.isValid, reader.remaining >= header.dataSize(timeSize: timeSize) else { return nil }

        // Counts checked against the bytes above: the arrays below are at most
        // as large as the file.
        let transitionCount = Int(header.timeCount), typeCount = Int(header.typeCount)
        var transitions: [Int64] = []
        transitions.reserveCapacity(transitionCount)
        for _ in 0..<transitionCount {
            let instant = timeSize == 8 ? reader.int64() : Int64(reader.int32())
            if let last = transitions.last, instant <= last { return nil }
            transitions.append(instant)
        }
        let transitionTypes = reader.take(transitionCount)
        guard transitionTypes.allSatisfy({ Int($0) < typeCount }) else { return nil }
        var types: [LocalTimeType] = []
        types.reserveCapacity(typeCount)
        for _ in 0..<typeCount {
            let utcOffset = reader.int32()
            let isDaylight = reader.byte()
            let abbreviationIndex = reader.byte()
            guard utcOffsets.contains(Int(utcOffset)), isDaylight <= 1, UInt32(abbreviationIndex) < header.characterCount
            else { return nil }
            types.append(LocalTimeType(utcOffset: utcOffset, isDaylight: isDaylight == 1))
        }
        // Abbreviations, leap-second records, standard/wall and UT/local indicators.
        let rest = Int(header.characterCount) + Int(header.leapCount) * (timeSize + 4)
            + Int(header.standardCount) + Int(header.utcCount)
        guard reader.skip(rest) else { return nil }

        var footer: POSIXTimeZone? = nil
        if version >= 2 {
            // "\n" TZ string "\n"; nothing after it is read.
            guard reader.nextByte() == 0x0A, let end = reader.firstIndex(of: 0x0A) else { return nil }
            let string = reader.take(end - reader.index)
            if !string.isEmpty {
                guard let rule = POSIXTimeZone(utf8: string) else { return nil }
                footer = rule
            }
        }
        return TZif(
            version: version, transitions: transitions, transitionTypes: transitionTypes, types: types, footer: footer)
    }
}

/// RFC 8536 §3.1: the 44-byte header.
private struct Header {
    var version: Int
    var utcCount: UInt32, standardCount: UInt32, leapCount: UInt32
    var timeCount: UInt32, typeCount: UInt32, characterCount: UInt32

    /// The data block's size (at most ~130 GB from 32-bit counts: no overflow in Int).
    func dataSize(timeSize: Int) -> Int {
        Int(timeCount) * (timeSize + 1) + Int(typeCount) * 6 + Int(characterCount)
            + Int(leapCount) * (timeSize + 4) + Int(standardCount) + Int(utcCount)
    }

    /// RFC 8536's MUSTs on the counts: the indicators absent or one per type,
    /// at least one type and one abbreviation byte.
    var isValid: Bool {
        (utcCount == 0 || utcCount == typeCount) && (standardCount == 0 || standardCount == typeCount)
            && typeCount > 0 && characterCount > 0
    }
}

/// Big-endian reads over the bytes; callers check `remaining` first (the
/// reads trap past the end, which the size checks above rule out).
private struct Reader {
    let bytes: [UInt8]
    var index = 0

    var remaining: Int { bytes.count - index }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        index += count
        return true
    }

    mutating func nextByte() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func byte() -> UInt8 {
        defer { index += 1 }
        return bytes[index]
    }

    mutating func take(_ count: Int) -> [UInt8] {
        defer { index += count }
        return Array(bytes[index..<index + count])
    }

    mutating func uint32() -> UInt32 {
        defer { index += 4 }
        return bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func int32() -> Int32 { Int32(bitPattern: uint32()) }

    mutating func int64() -> Int64 {
        defer { index += 8 }
        return Int64(bitPattern: bytes[index..<index + 8].reduce(0) { $0 << 8 | UInt64($1) })
    }

    func firstIndex(of byte: UInt8) -> Int? {
        bytes[index...].firstIndex(of: byte)
    }

    /// "TZif", the version, 15 unused bytes and six counts; nil if any is missing or the version unknown.
    mutating func header() -> Header? {
        guard remaining >= 44, bytes[index..<index + 4].elementsEqual("TZif".utf8) else { return nil }
        index += 4
        let versionByte = byte()
        let version: Int
        switch versionByte {
        case 0: version = 1
        case UInt8(ascii: "2")...UInt8(ascii: "9"): version = Int(versionByte - UInt8(ascii: "0"))
        default: return nil
        }
        index += 15
        return Header(
            version: version, utcCount: uint32(), standardCount: uint32(), leapCount: uint32(),
            timeCount: uint32(), typeCount: uint32(), characterCount: uint32())
    }
}
