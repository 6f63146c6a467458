import EventReplay
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// Paths and helpers shared by the replay tests.
enum Repo {
    /// The repository root, found from this source file's location.
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/EventReplayTests/ReplaySupport.swift
        return parts.joined(separator: "/")
    }()

    static let sampleEvents = root + "/SampleEvents"

    static func sampleFiles(ending suffix: String = ".jsonl") -> [String] {
        guard let dir = opendir(sampleEvents) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasSuffix(suffix) { names.append(name) }
        }
        return names.sorted()
    }

    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func write(_ text: String, to path: String) {
        guard let file = fopen(path, "wb") else { return }
        _ = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
        fclose(file)
    }

    /// A fresh path for each call: tests run in parallel, and two that
    /// wrote the same name raced (one replayed a file the other was
    /// rewriting, and saw no events).
    static func temporaryPath(_ name: String) -> String {
        "/tmp/printbridge-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))-\(name)"
    }
}

/// The result of replaying files the way `printbridge replay` does.
struct ReplayResult {
    var pushes: [Push] = []
    var lines: [String] = []
    var diagnostics: [ReplayRun.Diagnostic] = []
    var summary = ReplayRun.Summary()
}

func replay(_ paths: [String], devices: [Device]? = nil) -> ReplayResult {
    var run = devices.map { ReplayRun(devices: $0) } ?? ReplayRun.demo()
    var result = ReplayResult()
    let onPush: (Push) -> Void = { push in
        result.pushes.append(push)
        result.lines.append(PushLineFormat.json.line(for: push))
    }
    for path in paths {
        run.replay(path: path, onPush: onPush, onDiagnostic: { result.diagnostics.append($0) })
    }
    run.finish(onPush: onPush, onDiagnostic: { result.diagnostics.append($0) })
    result.summary = run.summary
    return result
}
