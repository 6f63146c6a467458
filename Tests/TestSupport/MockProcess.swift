import Foundation

/// A Python mock server started for a test: it prints "PORT <n>" when it
/// listens and exits when its stdin closes (when the test process ends) or
/// when the test lets go of it.
public final class MockProcess: @unchecked Sendable {
    // @unchecked Sendable: every member is set once in init and only read.
    public let port: Int
    private let child: ChildProcess
    /// The write end of the mock's stdin, held while the mock should run.
    private let stdin: Int32

    public struct DidNotStart: Error, CustomStringConvertible {
        public var description: String { "the mock server did not print its port" }
    }

    /// Runs `python3 script arguments…` and waits for its port.
    public init(script: String, arguments: [String]) throws {
        child = try ChildProcess("/usr/bin/env", ["python3", script] + arguments, stdin: .pipe, stdout: .pipe)
        stdin = child.stdinPipe
        let output = child.stdoutPipe
        defer { close(output) }
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while !line.contains(0x0A) {
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                close(stdin)
                throw DidNotStart()
            }
            line += buffer[0..<count]
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5).prefix { $0.isNumber }) else {
            close(stdin)
            throw DidNotStart()
        }
        self.port = port
    }

    deinit {
        child.terminate()
        close(stdin)
    }
}
