import DeviceStore
import Foundation
import TestSupport
import Testing

/// The store after its process is killed in the middle of writing: it opens,
/// it is consistent, and everything committed is there.
@Suite struct CrashSafetyTests {
    @Test func killedMidWriteLosesNothingCommitted() throws {
        let temp = TemporaryStore()
        let root = CommandRunner.repositoryRoot(from: #filePath)
        let printbridge = try #require(CommandRunner.binary(repositoryRoot: root))
        let writer = URL(fileURLWithPath: printbridge).deletingLastPathComponent().appendingPathComponent("StoreWriter").path
        try #require(FileManager.default.isExecutableFile(atPath: writer), "StoreWriter helper not built")
        let process = try ChildProcess(writer, [temp.directory], stdout: .pipe)
        let reader = FileHandle(fileDescriptor: process.stdoutPipe, closeOnDealloc: true)
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, (text.split(separator: "\n").last.flatMap { Int($0) } ?? 0) < 200 {
            text += String(decoding: reader.availableData, as: UTF8.self)
        }
        process.signal(SIGKILL)
        _ = process.waitForExit()
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        let committed = text.split(separator: "\n").compactMap { Int($0) }.last ?? 0
        #expect(committed >= 200)
        let store = try temp.open()
        let devices = try store.devices()
        #expect(devices.count >= committed, "every reported commit survived")
        #expect(devices.count <= committed + 1, "at most the write in flight")
        #expect(Set(devices.map(\.apnsToken)).count == devices.count)
        #expect(try store.notificationStates()["x1c"]?.lastStatus == .running)
        #expect(sqliteIntegrityCheck(store.path) == "ok")
    }
}
