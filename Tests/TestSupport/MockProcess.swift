import Foundation
import Synchronization

/// A Python mock server started for a test: it prints "PORT <n>" when it
/// listens and exits when its stdin closes (when the test process ends) or
/// when the test lets go of it.
public final class MockProcess: @unchecked Sendable {
    // @unchecked Sendable: every member is set once in init and only read,
    // but for `stdinOpen`, behind its Mutex.
    public let port: Int
    private let child: ChildProcess
    /// The write end of the mock's stdin, held while the mock should run.
    private let stdin: Int32
    private let stdinOpen = Mutex(true)

    public struct DidNotStart: Error, CustomStringConvertible {
        public var description: String { "the mock server did not print its port" }
    }

    /// Runs `python script arguments…` (`python3` from PATH unless given)
    /// and waits for its port, up to `startTimeout` seconds (a mock that
    /// hangs before it listens is killed and reported, not waited for forever).
    public init(script: String, arguments: [String], python: String? = nil, startTimeout: Double = 600) throws {
        child = try ChildProcess(
            python ?? "/usr/bin/env", (python == nil ? ["python3"] : []) + [script] + arguments, stdin: .pipe,
            stdout: .pipe)
        stdin = child.stdinPipe
        let output = child.stdoutPipe
        defer { close(output) }
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        let deadline = Date().addingTimeInterval(startTimeout)
        while !line.contains(0x0A) {
            var ready = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { break }
            let polled = poll(&ready, 1, Int32(min(left, 1) * 1000))
            if polled < 0 && errno == EINTR || polled == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            line += buffer[0..<count]
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5).prefix { $0.isNumber }) else {
            child.signal(SIGKILL)
            close(stdin)
            throw DidNotStart()
        }
        self.port = port
    }

    /// Writes one command line to the mock's stdin.
    public func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(stdin, $0.baseAddress, $0.count) }
    }

    /// Lets the mock stop itself (stdin closes), waiting up to `seconds`.
    public func finish(within seconds: Double) {
        closeStdin()
        let deadline = Date().addingTimeInterval(seconds)
        while child.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
    }

    /// Kills the mock now and waits for it to be gone (its port is free again).
    public func kill() {
        child.signal(SIGKILL)
        _ = child.waitForExit()
        closeStdin()
    }

    private func closeStdin() {
        if stdinOpen.withLock({ open in defer { open = false }; return open }) { close(stdin) }
    }

    deinit {
        child.terminate()
        closeStdin()
    }
}
