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

    public static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Double = 600, filePath: String = #filePath
    ) throws -> Result {
        let root = repositoryRoot(from: filePath)
        guard let binary = binary(repositoryRoot: root) else { throw NotFound() }
        return try execute(binary, arguments, environment: environment, directory: root, timeout: timeout)
    }

    /// Runs any program to its end, with this process's environment plus
    /// `environment`, and returns what it printed. A program still running
    /// after `timeout` seconds is killed (status 137): a hung command fails
    /// its test instead of hanging the whole run.
    public static func execute(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String,
        timeout: Double = 600
    ) throws -> Result {
        let child = try ChildProcess(
            executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            directory: directory, stdout: .pipe, stderr: .pipe)
        // `signal` does nothing once the child has been waited for.
        let watchdog = DispatchWorkItem { child.signal(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        // Both at once, so that neither pipe can fill up and block the child.
        let (stdout, stderr) = readToEnd(child.stdoutPipe, child.stderrPipe)
        close(child.stdoutPipe)
        close(child.stderrPipe)
        return Result(
            status: child.waitForExit(), stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Everything two descriptors give until both are at their end.
    static func readToEnd(_ first: Int32, _ second: Int32) -> ([UInt8], [UInt8]) {
        var data: [[UInt8]] = [[], []]
        var open = [first, second]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while open.contains(where: { $0 >= 0 }) {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 || errno == EINTR else { break }
            for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    data[index] += buffer[0..<count]
                } else if count == 0 || errno != EINTR {
                    open[index] = -1
                }
            }
        }
        return (data[0], data[1])
    }
}
