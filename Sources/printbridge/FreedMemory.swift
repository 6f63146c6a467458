#if os(Linux)
import CGlibcExtras
import Glibc
#endif

/// Hands memory the allocator kept after a burst back to the system.
///
/// HA's get_states answer is one message of up to several MB on a large
/// installation. Its frame, its parse and the snapshot built from it are
/// freed once the snapshot is applied, but glibc keeps the freed pages
/// resident in its heaps (a 5 MB snapshot left the idle agent at 32 MB
/// instead of 20). `malloc_trim(0)` returns them (declared by the
/// CGlibcExtras shim: Swift's Glibc module leaves <malloc.h> out); elsewhere
/// it is a no-op.
///
/// `malloc_trim` cannot give back the free top of a thread's own arena
/// (glibc malloc/malloc.c, `mtrim`: it madvises free chunks in the bins of
/// every arena but calls `systrim` on the main arena's top only; a thread arena's top
/// shrinks only when a large free happens to border it): a 50 MB HA message,
/// read on the link's thread, left 20 MB behind in that thread's arena
/// (malloc_stats: 21 MB "system", 90 KB "in use"). So `configure`, called
/// before any other thread exists, keeps every thread on the main arena
/// (M_ARENA_MAX 1: the agent's few threads allocate little, and glibc's
/// per-thread tcache serves small blocks without the lock), and fixes the
/// thresholds (which turns glibc's dynamic adjustment off): blocks of 1 MiB
/// or more are mapped on their own and unmapped when freed, and a free top
/// over 1 MiB is trimmed.
enum FreedMemory {
    static func release() {
        #if os(Linux)
        _ = malloc_trim(0)
        _ = startUpCodeReleased
        #endif
    }

    #if os(Linux)
    /// Unmaps the pages of the agent's own code that are resident only
    /// because start-up ran once (argument parsing, configuration, the
    /// schema, the first snapshot) or because the kernel maps 64 KB around
    /// every page it faults in: about 6 of the executable's 10 MB. Its code
    /// is never written, so the pages stay in the page cache and come back
    /// from the file when next run. Nothing here depends on the layout of
    /// the code, the toolchain or the architecture.
    /// Once per process, at the first release (a lazy static runs once).
    private static let startUpCodeReleased: Void = releaseStartUpCode()

    private static func releaseStartUpCode() {
        guard let maps = fopen("/proc/self/maps", "r") else { return }
        defer { fclose(maps) }
        var executable = [CChar](repeating: 0, count: 4097)
        let length = readlink("/proc/self/exe", &executable, 4096)
        guard length > 0 else { return }
        let path = String(decoding: executable.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var line = [CChar](repeating: 0, count: 4096 + 256)
        while fgets(&line, Int32(line.count), maps) != nil {
            let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            // "start-end perms offset dev inode   path"
            let fields = text.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "r-xp", text.hasSuffix(" " + path + "\n") else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt(String($0), radix: 16) }
            guard bounds.count == 2, bounds[1] > bounds[0], let start = UnsafeMutableRawPointer(bitPattern: bounds[0]) else { continue }
            _ = madvise(start, Int(bounds[1] - bounds[0]), MADV_DONTNEED)
        }
    }
    #endif

    static func configure() {
        #if os(Linux)
        _ = mallopt(M_MMAP_THRESHOLD, 1 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 1 << 20)
        _ = mallopt(M_ARENA_MAX, 1)
        #endif
    }
}
