// Why a hand-written TZif reader (TZif.swift, POSIXTimeZone.swift): the
// statistics need a zone's offsets, and nothing the agent already links
// gives them. FoundationEssentials' TimeZone(identifier:) is nil without ICU,
// and full Foundation would pull ICU into the agent. Debian's libcctz
// came first, but Debian ships it only as a shared library that needs the
// shared libstdc++.so.6 and libgcc_s, which the release build
// (scripts/build-release.sh) links statically on purpose: measured, loading
// them cost +2.2 MB resident (~124 KB of it private) and mixed two C++
// runtimes in one process, against an idle PSS target of 12 MiB the agent is
// at already. The format is small and stable (RFC 8536), the system's tzdata
// stays the source, and the parser has a libFuzzer target
// (Fuzz/Sources/FuzzTZif) besides the tests, whose values were checked
// against Python's zoneinfo for every zone.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The UTC offsets of one IANA time zone ("Europe/Berlin"), past and future,
/// from the system's tzdata: the TZif file's transitions, then its POSIX
/// footer rule for the years after them (2090 in Berlin is summer time at
/// +02:00 like 2026). For the statistics' local days, weeks and months
/// (`tz=Europe/Berlin`).
///
/// Instants are seconds since 1970-01-01T00:00:00Z; offsets are seconds east
/// of UTC (Berlin in winter: 3600). A value is cheap to copy and to share
/// between tasks and threads: the zone it reads is immutable once loaded.
public struct ZoneRules: Sendable {
    /// UTC: offset 0, never a change. Needs no tzdata.
    public static let utc = ZoneRules(identifier: "UTC", zone: Zone.utc)

    /// The most periods `periods(from:to:)` returns (see there).
    public static let maximumPeriods = 10_000

    /// The names that mean UTC without tzdata: "UTC", "Etc/UTC", "Z".
    static let utcIdentifiers: Set<String> = ["UTC", "Etc/UTC", "Z"]

    /// The identifier as given: "Europe/Berlin", or "Z" for `init?(identifier: "Z")`.
    public let identifier: String
    private let zone: Zone

    private init(identifier: String, zone: Zone) {
        self.identifier = identifier
        self.zone = zone
    }

    /// The zone `identifier` names in the system's tzdata (/usr/share/zoneinfo,
    /// or $TZDIR); "UTC", "Etc/UTC" and "Z" always. Nil for a name that is no
    /// zone there or whose file is not a valid TZif file, for "localtime" (the
    /// host's zone is not a zone a client can name) and "right/…" (leap-second
    /// clocks), and for anything spelled like a path ("/etc/localtime",
    /// "../x"), longer than 200 bytes, holding a NUL, or empty.
    public init?(identifier: String) {
        if Self.utcIdentifiers.contains(identifier) {
            self.init(identifier: identifier, zone: Zone.utc)
            return
        }
        guard let zone = Zone.loaded(identifier) else { return nil }
        self.init(identifier: identifier, zone: zone)
    }

    /// A zone from a parsed file, not cached (tests and the fuzz target).
    init(identifier: String, tzif: TZif) {
        self.init(identifier: identifier, zone: Zone(tzif))
    }

    /// The offset in force at `utcSeconds`, in seconds east of UTC.
    public func offset(at utcSeconds: Int64) -> Int {
        zone.offset(at: utcSeconds)
    }

    /// The first instant after `utcSeconds` at which the offset changes, or
    /// nil if it never changes again. Changes of only the abbreviation or of
    /// whether it is called summer time do not count.
    public func nextChange(after utcSeconds: Int64) -> Int64? {
        zone.nextChange(after: utcSeconds)
    }

    /// The offsets in force over [from, to): the first period starts at `from`;
    /// each later one at an offset change, so consecutive offsets differ and
    /// each period lasts until the next one's start (the last until `to`).
    ///
    /// Empty when `from >= to`: a half-open range with no instants has no
    /// offsets in force. At most `maximumPeriods` periods (five thousand years
    /// of a zone with summer time): a longer range is cut there, and the last
    /// period returned then ends before `to`. Callers bound their ranges.
    public func periods(from: Int64, to: Int64) -> [(start: Int64, offset: Int)] {
        guard from < to else { return [] }
        var periods: [(start: Int64, offset: Int)] = [(from, offset(at: from))]
        var after = from
        while periods.count < Self.maximumPeriods, let change = nextChange(after: after), change < to {
            periods.append((change, offset(at: change)))
            after = change
        }
        return periods
    }
}

/// One loaded zone, immutable: the file's transitions reduced to those that
/// change the offset, and the footer rule after the file's last transition.
///
/// Which rule answers where (RFC 8536 §3.2, as Python's zoneinfo reads it):
/// before the first transition the file's type 0; up to and at the last
/// transition L the transitions; after L the footer rule, or the last
/// transition's type when the footer is empty. A file without transitions is
/// the footer rule everywhere, or type 0.
final class Zone: Sendable {
    /// The offset before the first change.
    let initialOffset: Int
    /// The instants at which the file's transitions change the offset, ascending ...
    let changes: [Int64]
    /// ... and the offset from each.
    let offsets: [Int32]
    /// The file's last transition (L), nil if it has none.
    let lastTransition: Int64?
    /// The footer rule.
    let footer: POSIXTimeZone?

    init(_ tzif: TZif) {
        initialOffset = Int(tzif.types[0].utcOffset)
        var changes: [Int64] = [], offsets: [Int32] = []
        var current = tzif.types[0].utcOffset
        for (instant, type) in zip(tzif.transitions, tzif.transitionTypes) {
            let offset = tzif.types[Int(type)].utcOffset
            if offset != current {
                changes.append(instant)
                offsets.append(offset)
                current = offset
            }
        }
        self.changes = changes
        self.offsets = offsets
        lastTransition = tzif.transitions.last
        footer = tzif.footer
    }

    static let utc = Zone(
        TZif(version: 2, transitions: [], transitionTypes: [], types: [.init(utcOffset: 0, isDaylight: false)], footer: nil))

    /// Whether the footer rule answers for `instant`.
    private func footerRules(_ instant: Int64) -> Bool {
        guard footer != nil else { return false }
        guard let lastTransition else { return true }
        return instant > lastTransition
    }

    /// The offset from the transitions: the last change at or before `instant`.
    private func tableOffset(at instant: Int64) -> Int {
        // The first change after `instant`; the one before it is in force.
        var low = 0, high = changes.count
        while low < high {
            let middle = (low + high) / 2
            if changes[middle] <= instant { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initialOffset : Int(offsets[low - 1])
    }

    func offset(at instant: Int64) -> Int {
        if let footer, footerRules(instant) { return footer.offset(at: instant) }
        return tableOffset(at: instant)
    }

    func nextChange(after instant: Int64) -> Int64? {
        // The transitions' changes (all at or before L).
        var low = 0, high = changes.count
        while low < high {
            let middle = (low + high) / 2
            if changes[middle] <= instant { low = middle + 1 } else { high = middle }
        }
        if low < changes.count { return changes[low] }
        guard let footer else { return nil }
        guard let lastTransition else { return footer.nextChange(after: instant) }
        // The footer takes over at L + 1: a change there if it disagrees with
        // the transitions (a consistent file never does), then its own changes.
        guard lastTransition < Int64.max else { return nil }
        let takeover = lastTransition + 1
        if instant < takeover, footer.offset(at: takeover) != tableOffset(at: lastTransition) { return takeover }
        return footer.nextChange(after: max(instant, takeover))
    }

    /// Zones by name, so a request does not read its file again: at most
    /// `capacity`, the oldest dropped first. A zone is a few KB (Berlin: 143
    /// transitions), so the cache stays well under a MB.
    private static let cache = Mutex(Cache())
    private struct Cache {
        static let capacity = 64
        var zones: [String: Zone] = [:]
        var order: [String] = []
    }

    static func loaded(_ name: String) -> Zone? {
        if let zone = cache.withLock({ $0.zones[name] }) { return zone }
        // Read outside the lock: the first load of a zone reads its file.
        guard isZoneName(name), let bytes = readZoneFile(name), let tzif = TZif.parse(bytes) else { return nil }
        let zone = Zone(tzif)
        return cache.withLock { cache in
            if let raced = cache.zones[name] { return raced }  // another thread was first
            if cache.order.count >= Cache.capacity {
                cache.zones[cache.order.removeFirst()] = nil
            }
            cache.zones[name] = zone
            cache.order.append(name)
            return zone
        }
    }

    /// An IANA identifier's spelling: "Europe/Berlin",
    /// "America/Argentina/Buenos_Aires", "Etc/GMT+5", "EST5EDT". Never a path
    /// outside the zoneinfo directory: letters, digits, '/', '_', '+', '-',
    /// '.' (so no NUL); no "..", no "." component, no leading, trailing or
    /// doubled '/'; at most 200 bytes; not "localtime" (/etc/localtime on
    /// Debian) nor "right/…" (leap-second clocks, not POSIX seconds).
    static func isZoneName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 200, name != "localtime", !name.hasPrefix("right/") else { return false }
        for byte in bytes {
            let letterOrDigit = (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A || byte >= 0x30 && byte <= 0x39
            guard letterOrDigit || "/_+-.".utf8.contains(byte) else { return false }
        }
        let dot = UInt8(ascii: ".")
        guard !zip(bytes, bytes.dropFirst()).contains(where: { $0 == dot && $1 == dot }) else { return false }
        let components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        return components.allSatisfy { !$0.isEmpty && !$0.elementsEqual([dot]) }
    }

    /// The file under $TZDIR (when set and not empty) or /usr/share/zoneinfo:
    /// a regular file (symbolic links followed, as tzdata has them) of at most
    /// TZif.maximumSize bytes, or nil.
    static func readZoneFile(_ name: String) -> [UInt8]? {
        var directory = "/usr/share/zoneinfo"
        if let value = getenv("TZDIR"), value.pointee != 0 { directory = String(cString: value) }
        // Non-blocking: a FIFO put there would otherwise block the open; fstat refuses it next.
        let fd = open(directory + "/" + name, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= TZif.maximumSize else {
            return nil
        }
        // One byte more than fstat's size: a file that grew since (being
        // replaced by an update) is refused, not cut.
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                read(fd, buffer.baseAddress! + count, buffer.count - count)
            }
            if got < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if got == 0 { break }
            count += got
        }
        guard count < bytes.count else { return nil }
        bytes.removeLast(bytes.count - count)
        return bytes
    }
}
