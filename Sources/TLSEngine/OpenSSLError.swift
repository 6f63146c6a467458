import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// OpenSSL's error queue as text. The queue is the calling thread's;
/// reading it empties it.
public enum OpenSSLError {
    /// The queued errors, joined, or `fallback` when there are none.
    public static func text(orElse fallback: @autoclosure () -> String = "no detail") -> String {
        var texts: [String] = []
        while case let code = ERR_get_error(), code != 0 { texts.append(describe(code)) }
        return texts.isEmpty ? fallback() : texts.joined(separator: "; ")
    }

    /// The first queued error (the rest are cleared), or nil when there is none.
    public static func first() -> String? {
        let code = ERR_get_error()
        ERR_clear_error()
        return code == 0 ? nil : describe(code)
    }

    /// The queued errors, or the system error `code` when there are none (a
    /// reset socket: OpenSSL queues nothing for it), "end of stream" for none.
    public static func text(orErrno code: Int32) -> String {
        text(orElse: code == 0 ? "end of stream" : String(cString: strerror(code)))
    }

    private static func describe(_ code: UInt) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
