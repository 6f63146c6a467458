import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program the tests start: posix_spawn, and waitpid on its own pid.
///
/// Not Foundation's `Process`: on Linux it learns that a child ended when a
/// socket the child holds closes. With tests starting programs in parallel,
/// another child (a mock server that runs to the end of the test run) can
/// inherit that socket too, and `waitUntilExit` then waits for the wrong
/// process: a whole test run hung so, on a `printbridge check-config` that
/// had long exited. Here every descriptor above stderr is closed in the
/// child, so no child holds another's pipes, and the exit is learnt from
/// waitpid.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: `pid` and the pipe ends are immutable; `status` is
    // behind `lock`.
    public let pid: pid_t
    /// This process's end of each stream given as `.pipe` (else -1): write
    /// to `stdinPipe`, read from the others. The caller closes them.
    public let stdinPipe: Int32
    public let stdoutPipe: Int32
    public let stderrPipe: Int32
    private let lock = NSLock()
    private var status: Int32?

    public struct SpawnError: Error, CustomStringConvertible {
        public var description: String
    }

    /// What the child's standard stream is.
    public enum Stream {
        /// /dev/null
        case null
        /// This descriptor (the parent keeps and closes its own copy).
        case descriptor(Int32)
        /// A new pipe; this process's end is `stdinPipe`, `stdoutPipe` or `stderrPipe`.
        case pipe
    }

    /// Starts `executable` with `arguments`, `environment` (this process's
    /// unless given), in `directory` (nil: this process's).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        directory: String? = nil, stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null
    ) throws(SpawnError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = [-1, -1, -1]
        var childEnds: [Int32] = []
        var started = false
        defer {
            childEnds.forEach { close($0) }  // the child has its copies
            if !started { parentEnds.filter { $0 >= 0 }.forEach { close($0) } }
        }
        for (stream, target) in [(stdin, Int32(0)), (stdout, 1), (stderr, 2)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let descriptor):
                posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            case .pipe:
                let ends = try Self.pipe()
                let (child, parent) = target == 0 ? (ends.read, ends.write) : (ends.write, ends.read)
                childEnds.append(child)
                parentEnds[Int(target)] = parent
                posix_spawn_file_actions_adddup2(&actions, child, target)
            }
        }
        guard let closeFrom = Self.addCloseFrom, closeFrom(&actions, 3) == 0 else {
            throw SpawnError(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34+)")
        }
        if let directory {
            guard let changeDirectory = Self.addChangeDirectory, changeDirectory(&actions, directory) == 0 else {
                throw SpawnError(description: "posix_spawn_file_actions_addchdir_np is missing (glibc 2.29+)")
            }
        }
        // Default signal handling and no blocked signals, whatever the
        // spawning thread has: SIGTERM must reach the child.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        started = true
        self.pid = pid
        (stdinPipe, stdoutPipe, stderrPipe) = (parentEnds[0], parentEnds[1], parentEnds[2])
    }

    deinit {
        if isRunning {
            terminate()
            _ = waitForExit(upTo: 5)
        }
    }

    public func terminate() { signal(SIGTERM) }

    public func signal(_ number: Int32) {
        lock.withLock {
            if status == nil { _ = kill(pid, number) }
        }
    }

    public var isRunning: Bool { reap(blocking: false) == nil }

    /// Waits for the end: the exit code, or 128 + the signal that ended it.
    public func waitForExit() -> Int32 {
        reap(blocking: true) ?? -1
    }

    /// Like `waitForExit()`, but SIGKILL after `seconds`.
    public func waitForExit(upTo seconds: Double) -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let status = reap(blocking: false) { return status }
            usleep(10_000)
        }
        signal(SIGKILL)
        return waitForExit()
    }

    private func reap(blocking: Bool) -> Int32? {
        if let status = lock.withLock({ status }) { return status }
        // Not under the lock: a blocking wait must not hold up `signal`.
        var raw: Int32 = 0
        var result: pid_t
        repeat {
            result = waitpid(pid, &raw, blocking ? 0 : WNOHANG)
        } while result == -1 && errno == EINTR
        return lock.withLock {
            if result == pid {
                let signalled = raw & 0x7f
                status = signalled == 0 ? (raw >> 8) & 0xff : 128 + signalled
            }
            return status  // also when another thread reaped it first
        }
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChangeDirectory = @convention(c) (
        UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
    ) -> Int32

    // glibc declares these only with _GNU_SOURCE, which Swift's Glibc module lacks.
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }
    private static let addChangeDirectory: AddChangeDirectory? = dlsym(nil, "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: AddChangeDirectory.self) }

    /// A pipe whose ends are closed on exec, so that only the child it is
    /// handed to (by dup2) holds it.
    private static func pipe() throws(SpawnError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))") }
        for descriptor in fds { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }
}
