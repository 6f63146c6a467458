import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where log lines go: one write(2) per line under a lock, so lines from
/// different threads never interleave. Never throws; a closed descriptor
/// just drops the line.
public final class LogSink: Sendable {
    private let descriptor: Int32
    private let lock = Mutex(())

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    public static let standardOutput = LogSink(descriptor: 1)

    public func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        lock.withLock { _ in
            bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
        }
    }

    /// Whether the descriptor is a terminal (then people read the log, not jq).
    public var isTerminal: Bool { isatty(descriptor) == 1 }
}
