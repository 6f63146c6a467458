import Foundation

/// A Python mock server started for a test: it prints "PORT <n>" when it
/// listens and exits when its stdin closes (when the test process ends).
public final class MockProcess: @unchecked Sendable {
    // @unchecked Sendable: both members are set once in init and only read.
    public let port: Int
    private let process = Process()
    private let stdin = Pipe()

    public struct DidNotStart: Error, CustomStringConvertible {
        public var description: String { "the mock server did not print its port" }
    }

    /// Runs `python3 script arguments…` and waits for its port.
    public init(script: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { throw DidNotStart() }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5).prefix { $0.isNumber }) else { throw DidNotStart() }
        self.port = port
    }

    deinit {
        process.terminate()
    }
}
