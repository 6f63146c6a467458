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
        let input = try ChildProcess.pipe()
        let output = try ChildProcess.pipe()
        do {
            child = try ChildProcess(
                "/usr/bin/env", ["python3", script] + arguments, environment: ProcessInfo.processInfo.environment,
                stdin: .descriptor(input.read), stdout: .descriptor(output.write))
        } catch {
            for descriptor in [input.read, input.write, output.read, output.write] { close(descriptor) }
            throw error
        }
        close(input.read)
        close(output.write)
        stdin = input.write
        defer { close(output.read) }
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while !line.contains(0x0A) {
            let count = buffer.withUnsafeMutableBytes { read(output.read, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                close(input.write)
                throw DidNotStart()
            }
            line += buffer[0..<count]
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5).prefix { $0.isNumber }) else {
            close(input.write)
            throw DidNotStart()
        }
        self.port = port
    }

    deinit {
        child.terminate()
        close(stdin)
    }
}
