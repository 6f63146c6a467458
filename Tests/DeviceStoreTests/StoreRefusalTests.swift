import DeviceStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A store that cannot be used is refused with its path, never emptied.
@Suite struct StoreRefusalTests {
    @Test func aNewStoreIsThisUsersAlone() throws {
        let temp = TemporaryStore()
        let store = try temp.open()
        var info = stat()
        #expect(stat(store.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func anEmptyStoreFileIsRefusedWithItsPath() throws {
        let temp = TemporaryStore()
        let path = temp.directory + "/" + DeviceStore.fileName
        close(creat(path, 0o600))
        let error = #expect(throws: DeviceStore.Error.self) { try temp.open() }
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("empty file") == true)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_size == 0, "left as it was")
    }

    @Test func aDamagedStoreIsRefusedWithItsPath() throws {
        let temp = TemporaryStore()
        do {
            let store = try temp.open()
            _ = try store.register(apnsToken: phone, haURL: nil, printerPrefix: "x1c", printerName: nil)
        }
        let path = temp.directory + "/" + DeviceStore.fileName
        // Garbage over everything past the header: every page damaged.
        let file = open(path, O_WRONLY)
        let garbage = [UInt8](repeating: 0xA5, count: 16_384)
        _ = garbage.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, 100) }
        close(file)
        unlink(path + "-wal")
        unlink(path + "-shm")
        let error = #expect(throws: DeviceStore.Error.self) { try temp.open() }
        #expect(error?.description.contains(path) == true, "\(String(describing: error))")
        #expect(error?.description.contains("move it aside") == true, "\(String(describing: error))")
        #expect(error?.isCorruption == true, "SQLite's result code is kept: \(String(describing: error?.resultCode))")
        #expect(error?.isBusy == false)
        let notADatabase = temp.directory + "/other"
        mkdir(notADatabase, 0o700)
        let text = Array("these are not the droids you are looking for\n".utf8)
        let other = open(notADatabase + "/" + DeviceStore.fileName, O_WRONLY | O_CREAT, 0o600)
        _ = text.withUnsafeBytes { write(other, $0.baseAddress, $0.count) }
        close(other)
        let refusal = #expect(throws: DeviceStore.Error.self) { try DeviceStore(directory: notADatabase) }
        #expect(refusal?.description.contains(notADatabase + "/" + DeviceStore.fileName) == true)
    }
}
