#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `descriptor`, across short writes and EINTR;
/// false when the descriptor refused (closed: a log piped into `head`),
/// which callers take as nothing more to do. The one such loop (the log
/// sink and the commands' buffered stdout).
@discardableResult
public func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return false
        }
        offset += written
    }
    return true
}
