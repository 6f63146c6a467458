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
enum FreedMemory {
    private typealias Trim = @convention(c) (Int) -> Int32

    private static let trim: Trim? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
        #else
        return nil
        #endif
    }()

    static func release() {
        _ = trim?(0)
    }
}
