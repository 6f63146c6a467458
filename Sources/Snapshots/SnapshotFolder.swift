import PrintBridgeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The pictures on disk, under the state directory: one file each, named
/// `<32 random hex digits>.<jpg|png|gif>` (the name is in the signed link;
/// only such names are ever opened, so no request reaches outside the
/// folder), readable by the agent's user alone. Bounded: a picture lives
/// `lifetime` seconds from when it was taken (its file's time), the folder
/// holds at most `maximumBytes` and `maximumCount` pictures, the oldest
/// going first; `prune` enforces both and runs at each save and start.
public final class SnapshotFolder: Sendable {
    public let directory: String
    public let lifetime: Double
    public let maximumBytes: Int
    public let maximumCount: Int
    /// The largest picture taken (iOS attaches images up to 10 MB; a phone's
    /// extension has little memory and seconds to fetch it).
    public static let maximumImageBytes = 5 << 20
    /// Saves and prunes one at a time (reads need no lock: files appear by rename).
    private let lock = Mutex(())

    public init(directory: String, lifetime: Double, maximumBytes: Int, maximumCount: Int = 1000) {
        self.directory = directory
        self.lifetime = lifetime
        self.maximumBytes = maximumBytes
        self.maximumCount = maximumCount
    }

    /// A folder problem, with the path and the system's words.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Makes the folder (0700) if it is missing.
    public func prepare() throws(Failure) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw Failure(description: "cannot create \(directory): \(String(cString: strerror(errno)))")
        }
    }

    /// Whether `name` is one the folder gives out.
    public static func isSnapshotName(_ name: some StringProtocol) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 32, SnapshotImage(fileExtension: parts[1]) != nil else { return false }
        return parts[0].utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Keeps `bytes` as a new picture of `kind`; returns its name. Older
    /// pictures over the folder's bounds go first.
    public func save(_ bytes: [UInt8], kind: SnapshotImage, now: EpochTime) throws(Failure) -> String {
        guard let random = SnapshotSigner.newKey() else { throw Failure(description: "no random bytes for a picture's name") }
        let name = Hex.encode(random.prefix(16)) + "." + kind.fileExtension
        let path = directory + "/" + name
        let temporary = directory + "/." + name + ".part"
        try lock.withLock { _ throws(Failure) in
            _ = prune(now: now, reserving: bytes.count, locked: true)
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw Failure(description: "cannot write \(temporary): \(String(cString: strerror(errno)))")
            }
            var written = 0
            let ok = bytes.withUnsafeBytes { buffer -> Bool in
                while written < buffer.count {
                    let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { return false }
                    written += count
                }
                return true
            }
            let reason = String(cString: strerror(errno))
            close(descriptor)
            guard ok, rename(temporary, path) == 0 else {
                unlink(temporary)
                throw Failure(description: "cannot write \(path): \(reason)")
            }
        }
        return name
    }

    /// A picture's bytes and kind; nil when `name` is not a picture's name
    /// or its file is gone.
    public func read(name: String) -> (bytes: [UInt8], kind: SnapshotImage)? {
        guard Self.isSnapshotName(name), let kind = SnapshotImage(fileExtension: name.split(separator: ".")[1]) else {
            return nil
        }
        let descriptor = open(directory + "/" + name, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= Self.maximumImageBytes {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk.prefix(count)
        }
        return (bytes, kind)
    }

    /// One picture on disk.
    public struct Entry: Hashable, Sendable {
        public var name: String
        public var bytes: Int
        /// When it was taken (its file's modification time).
        public var takenAt: EpochTime
    }

    /// The pictures on disk, oldest first (files of other names are not the folder's).
    public func entries() -> [Entry] {
        guard let folder = opendir(directory) else { return [] }
        defer { closedir(folder) }
        var found: [Entry] = []
        while let item = readdir(folder) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard Self.isSnapshotName(name) else { continue }
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else { continue }
            let time = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            found.append(Entry(name: name, bytes: Int(info.st_size), takenAt: EpochTime(seconds: time)))
        }
        return found.sorted { ($0.takenAt.seconds, $0.name) < ($1.takenAt.seconds, $1.name) }
    }

    /// Removes the pictures whose time is over, then the oldest while the
    /// folder holds more than its bounds; returns how many went.
    @discardableResult
    public func prune(now: EpochTime) -> Int {
        lock.withLock { _ in prune(now: now, reserving: 0, locked: true) }
    }

    private func prune(now: EpochTime, reserving: Int, locked: Bool) -> Int {
        var kept = entries()
        var removed = 0
        func remove(_ entry: Entry) {
            if unlink(directory + "/" + entry.name) == 0 { removed += 1 }
        }
        for entry in kept where entry.takenAt.seconds + lifetime <= now.seconds { remove(entry) }
        kept.removeAll { $0.takenAt.seconds + lifetime <= now.seconds }
        var total = kept.reduce(reserving) { $0 + $1.bytes }
        var count = kept.count + (reserving > 0 ? 1 : 0)
        while let oldest = kept.first, total > maximumBytes || count > maximumCount {
            remove(oldest)
            kept.removeFirst()
            total -= oldest.bytes
            count -= 1
        }
        return removed
    }

    /// When the next picture's time is over (for a wake-up to remove it).
    public func nextExpiry() -> EpochTime? {
        entries().first.map { EpochTime(seconds: $0.takenAt.seconds + lifetime) }
    }
}
