#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file line by line in large chunks, handing out each line as raw
/// bytes without copying: recorded event files can hold millions of lines.
public struct LineReader: ~Copyable {
    public struct OpenError: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot read \(path): \(reason)" }
    }

    private let descriptor: Int32
    private let path: String
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var atEOF = false
    public private(set) var lineNumber = 0

    public init(path: String, chunkSize: Int = 1 << 22) throws(OpenError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw OpenError(path: path, reason: Self.errnoText()) }
        var info = stat()
        var size = chunkSize
        if fstat(fd, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                throw OpenError(path: path, reason: "it is a directory")
            }
            // A small file (a devices file, a short recording) gets a buffer
            // its size, not a 4 MiB one: a big transient allocation also
            // raises glibc's mmap threshold and leaves a daemon's heap larger.
            if (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) < chunkSize { size = Int(info.st_size) + 1 }
        }
        descriptor = fd
        self.path = path
        buffer = .allocate(byteCount: max(size, 4096), alignment: 16)
    }

    deinit {
        close(descriptor)
        buffer.deallocate()
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }

    /// Calls `body` with each line (without its newline) and its 1-based number.
    /// A final line without a newline is still delivered. Lines longer than the
    /// buffer grow it. Throws only when reading fails midway.
    public mutating func forEachLine(_ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        while true {
            // Deliver every complete line in the buffer.
            while let newline = findNewline(from: start) {
                lineNumber += 1
                var lineEnd = newline
                if lineEnd > start, buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                try body(UnsafeRawBufferPointer(rebasing: buffer[start..<lineEnd]), lineNumber)
                start = newline + 1
            }
            if atEOF {
                if start < end {
                    lineNumber += 1
                    try body(UnsafeRawBufferPointer(rebasing: buffer[start..<end]), lineNumber)
                    start = end
                }
                return
            }
            try refill()
        }
    }

    private func findNewline(from index: Int) -> Int? {
        guard index < end, let base = buffer.baseAddress else { return nil }
        guard let found = memchr(base + index, 0x0A, end - index) else { return nil }
        return base.distance(to: UnsafeMutableRawPointer(found))
    }

    private mutating func refill() throws {
        // Move the partial line to the front, growing the buffer if it is full.
        let pending = end - start
        if pending > 0, start > 0, let base = buffer.baseAddress {
            memmove(base, base + start, pending)
        }
        start = 0
        end = pending
        if end == buffer.count {
            let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 16)
            bigger.copyMemory(from: UnsafeRawBufferPointer(buffer))
            buffer.deallocate()
            buffer = bigger
        }
        while true {
            let count = read(descriptor, buffer.baseAddress! + end, buffer.count - end)
            if count > 0 {
                end += count
                return
            }
            if count == 0 {
                atEOF = true
                return
            }
            if errno == EINTR { continue }
            throw OpenError(path: path, reason: Self.errnoText())
        }
    }
}
