import PrintBridgeLogging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes whole lines to a file descriptor, buffered, so a replay with many
/// pushes does not make a system call per line.
struct LineWriter: ~Copyable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer.reserveCapacity(1 << 16)
    }

    static func standardOutput() -> LineWriter { LineWriter(descriptor: 1) }

    mutating func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        // stdout closed (e.g. piped into head): nothing more to do.
        buffer.withUnsafeBytes { writeAll($0, to: descriptor) }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit {
        buffer.withUnsafeBytes { writeAll($0, to: descriptor) }
    }
}

/// Process facts for the command line: stderr lines, environment, resource use.
enum StandardStreams {
    /// Writes one line to stdout at once (one write: lines from concurrent
    /// tasks never interleave).
    static func out(_ line: String) {
        var writer = LineWriter(descriptor: 1)
        writer.write(line)
        writer.flush()
    }

    /// Writes one line to stderr at once (diagnostics must not wait behind stdout).
    static func err(_ line: String) {
        var writer = LineWriter(descriptor: 2)
        writer.write(line)
        writer.flush()
    }

    /// Peak resident set size of this process in bytes: VmHWM from
    /// /proc/self/status (getrusage's ru_maxrss survives exec, so a process
    /// started from a large parent would report the parent's peak).
    static func peakRSSBytes() -> Int {
        if let file = fopen("/proc/self/status", "r") {
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 256)
            while fgets(&line, Int32(line.count), file) != nil {
                let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                if text.hasPrefix("VmHWM:") {
                    let digits = text.filter(\.isNumber)
                    if let kib = Int(digits) { return kib * 1024 }
                }
            }
        }
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Int(usage.ru_maxrss) * 1024
    }
}
