import Foundation

/// Runs the `printbridge` binary that `swift test` built, as a user would.
public enum CommandRunner {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String

        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// The binary beside the test bundle (or in .build/debug).
    public static func binary(repositoryRoot: String) -> String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("printbridge").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let fallback = repositoryRoot + "/.build/debug/printbridge"
        return FileManager.default.isExecutableFile(atPath: fallback) ? fallback : nil
    }

    /// The repository root, from a file's `#filePath` two folders below it.
    public static func repositoryRoot(from filePath: String) -> String {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    public struct NotFound: Error, CustomStringConvertible {
        public var description: String { "printbridge binary not found beside \(CommandLine.arguments[0])" }
    }

    public static func run(_ arguments: [String], environment: [String: String] = [:], filePath: String = #filePath)
        throws -> Result
    {
        let root = repositoryRoot(from: filePath)
        guard let binary = binary(repositoryRoot: root) else { throw NotFound() }
        return try execute(binary, arguments, environment: environment, directory: root)
    }

    /// Runs any program to its end, with this process's environment plus
    /// `environment`, and returns what it printed.
    public static func execute(_ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String)
        throws -> Result
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // stdout through a pipe; stderr into a file, so neither can fill up and block.
        let out = Pipe()
        let errPath = NSTemporaryDirectory() + "printbridge-stderr-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: errPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errPath) }
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? err.close()
        let stderr = FileManager.default.contents(atPath: errPath) ?? Data()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
