#if os(Linux)
import CGlibcExtras
import Glibc
#endif

/// Hands memory the allocator kept after a burst back to the system: after
/// HA's bulk messages (the agent's loop), and when the API's server is idle
/// again after a busy spell of connections (`APISetup`).
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
///
/// The agent's own code pages are left alone: unmapping them (as an earlier
/// version did after start-up, `madvise(MADV_DONTNEED)`) lowered VmRSS but
/// not memory used, as clean file pages stay in the page cache and fault
/// back in. What the agent costs is its anonymous memory and its share of
/// the pages it maps (RssAnon and PSS, `scripts/bench/daemon_benchmark.py`).
enum FreedMemory {
    static func release() {
        #if os(Linux)
        _ = malloc_trim(0)
        #endif
    }

    static func configure() {
        #if os(Linux)
        _ = mallopt(M_MMAP_THRESHOLD, 1 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 1 << 20)
        _ = mallopt(M_ARENA_MAX, 1)
        #endif
    }
}
