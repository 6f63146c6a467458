#if canImport(Glibc)
import Glibc
#endif

/// Hands memory the allocator kept after a burst back to the system.
///
/// HA's get_states answer is one message of up to several MB on a large
/// installation. Its frame, its parse and the snapshot built from it are
/// freed once the snapshot is applied, but glibc keeps the freed pages
/// resident in its heaps (a 5 MB snapshot left the idle agent at 32 MB
/// instead of 20). `malloc_trim(0)` returns them. It is looked up at run time
/// because Swift's Glibc module does not declare it; elsewhere it is a no-op.
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
    private typealias Trim = @convention(c) (Int) -> Int32
    private typealias Option = @convention(c) (Int32, Int32) -> Int32

    private static let trim = function("malloc_trim", as: Trim.self)
    private static let mallopt = function("mallopt", as: Option.self)

    /// glibc's `name`, looked up at run time; nil where there is none.
    private static func function<F>(_ name: String, as type: F.Type) -> F? {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
        #else
        return nil
        #endif
    }

    static func release() {
        _ = trim?(0)
    }

    /// malloc.h: M_TRIM_THRESHOLD -1, M_MMAP_THRESHOLD -3, M_ARENA_MAX -8.
    static func configure() {
        _ = mallopt?(-3, 1 << 20)
        _ = mallopt?(-1, 1 << 20)
        _ = mallopt?(-8, 1)
    }
}
