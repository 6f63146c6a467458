import Synchronization
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
        Self.writeAll(buffer, to: descriptor)
        buffer.removeAll(keepingCapacity: true)
    }

    private static func writeAll(_ buffer: [UInt8], to descriptor: Int32) {
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // stdout closed (e.g. piped into head): nothing more to do
                }
                offset += written
            }
        }
    }

    deinit {
        Self.writeAll(buffer, to: descriptor)
    }
}

/// Process facts for the command line: stderr lines, environment, resource use.
enum StandardStreams {
    /// Writes one line to stdout at once (one write: lines from concurrent
    /// tasks never interleave).
    static func out(_ line: String) {
        var writer = LineWriter(descriptor: 1)
        writer.write(redacted(line))
        writer.flush()
    }

    /// Secrets that must never be printed, whatever a settings file holds
    /// (`check-config` sets them: a value can end up inside another's).
    static let secrets = Mutex<[String]>([])

    /// `line` with every known secret replaced by `<redacted>`.
    static func redacted(_ line: String) -> String {
        let secrets = secrets.withLock { $0 }
        guard !secrets.isEmpty else { return line }
        var result = line
        for secret in secrets where result.contains(secret) {
            result = result.split(separator: secret, omittingEmptySubsequences: false).joined(separator: "<redacted>")
        }
        return result
    }

    /// A small text file's contents, or nil when it cannot be read.
    static func readSmallFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes one line to stderr at once (diagnostics must not wait behind stdout).
    /// A setting taken from the settings file is named by its key and line there.
    static func err(_ line: String) {
        var writer = LineWriter(descriptor: 2)
        let named = ConfigFile.current.withLock { $0 }?.namingKeys(in: line) ?? line
        writer.write(redacted(named))
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

    /// A setting: the environment variable if set and non-empty, else the
    /// config file's value (see ConfigFile).
    static func environment(_ name: String) -> String? {
        processEnvironment(name) ?? ConfigFile.current.withLock { $0?.values[name] } ?? credential(for: name)
    }

    /// systemd's credentials (LoadCredential=ha-token:…): the file for a
    /// secret's path setting, when it is not set otherwise.
    static let credentialNames = ["HA_TOKEN_FILE": "ha-token", "API_TOKEN_FILE": "api-token", "APNS_KEY_PATH": "apns-key.p8"]

    private static func credential(for name: String) -> String? {
        guard let file = credentialNames[name], let directory = processEnvironment("CREDENTIALS_DIRECTORY") else { return nil }
        if name == "HA_TOKEN_FILE", processEnvironment("HA_TOKEN") != nil { return nil }
        if name == "API_TOKEN_FILE", processEnvironment("API_TOKEN") != nil { return nil }
        let path = directory + "/" + file
        // A blank credential is the unit's default (SetCredential=name:\n)
        // for a file that is not there yet: no credential.
        guard let text = readSmallFile(path), text.contains(where: { !$0.isWhitespace }) else { return nil }
        return path
    }

    /// " (the systemd credential ha-token is missing or empty)" when running
    /// under systemd credentials and the one for `name` was not given, so a
    /// start-up error names the file the owner has to create.
    static func credentialHint(for name: String) -> String {
        guard let file = credentialNames[name], processEnvironment("CREDENTIALS_DIRECTORY") != nil,
            credential(for: name) == nil
        else { return "" }
        return " (the systemd credential \(file) is missing or empty)"
    }

    /// An environment variable, if set and non-empty.
    static func processEnvironment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}
