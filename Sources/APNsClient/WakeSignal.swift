import CGlibcExtras

#if canImport(Glibc)
import Glibc
#endif

/// The eventfd that wakes the client's loop from `poll`: a submitter, a
/// finished name lookup or `shutdown` signals it; the loop clears it.
/// Whoever may still signal holds this object, so the descriptor stays open
/// until the last of them is done (a lookup thread can outlive the client's loop).
final class WakeSignal: Sendable {
    // Sendable: `descriptor` is immutable; eventfd reads and writes are atomic.
    let descriptor: Int32

    init() throws(HTTP2TransportError) {
        descriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard descriptor >= 0 else {
            throw HTTP2TransportError(.setUp, "eventfd: \(String(cString: strerror(errno)))")
        }
    }

    deinit { Glibc.close(descriptor) }

    /// Makes the descriptor readable (from any thread).
    func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(descriptor, &one, 8)
    }

    /// Makes it unreadable again (the loop, after `poll` said it was).
    func clear() {
        var count: UInt64 = 0
        _ = Glibc.read(descriptor, &count, 8)
    }
}
