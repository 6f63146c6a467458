import PrintBridgeCore
import Snapshots
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The pictures: signed links nobody can forge or stretch, a folder that
/// stays within its bounds and opens nothing outside itself, and the
/// camera's answers judged as a phone would (only real JPEG, PNG or GIF).
@Suite struct SnapshotsTests {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 100) + [0xFF, 0xD9]
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 1, count: 50)

    func at(_ seconds: Double) -> EpochTime { EpochTime(seconds: seconds) }

    /// A fresh folder under /tmp, removed by the caller.
    func temporaryFolder(maximumBytes: Int = 1 << 20, maximumCount: Int = 1000, lifetime: Double = 86_400) -> SnapshotFolder {
        var template = Array("/tmp/pb-snapshots-XXXXXX".utf8CString)
        let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        return SnapshotFolder(directory: path, lifetime: lifetime, maximumBytes: maximumBytes, maximumCount: maximumCount)
    }

    func remove(_ folder: SnapshotFolder) {
        for entry in folder.entries() { unlink(folder.directory + "/" + entry.name) }
        rmdir(folder.directory)
    }

    func parts(_ link: String) -> (name: String, expires: String?, sig: String?) {
        let (path, query) = (link.split(separator: "?")[0], link.split(separator: "?")[1])
        var values: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            values[String(kv[0])] = String(kv[1])
        }
        return (String(path.dropFirst(SnapshotSigner.routePrefix.count)), values["expires"], values["sig"])
    }

    @Test func aSignedLinkIsValidUntilItsTimeAndNotOnceTamperedWith() throws {
        let signer = SnapshotSigner(key: try #require(SnapshotSigner.newKey()))
        let name = "0123456789abcdef0123456789abcdef.jpg"
        let link = signer.link(name: name, expires: at(2_000))
        #expect(link.hasPrefix("/api/snapshots/\(name)?expires=2000&sig="))
        let (_, expires, sig) = parts(link)
        #expect(signer.check(name: name, expires: expires, signature: sig, now: at(1_999)) == .valid(expires: at(2_000)))
        #expect(signer.check(name: name, expires: expires, signature: sig, now: at(2_000)) == .expired)
        // Stretching the time, another picture's name, a changed or missing signature, another key.
        #expect(signer.check(name: name, expires: "999999999", signature: sig, now: at(1_000)) == .forged)
        #expect(signer.check(name: "f" + name.dropFirst(), expires: expires, signature: sig, now: at(1_000)) == .forged)
        var flipped = Array(sig!.utf8)
        flipped[5] = flipped[5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(signer.check(name: name, expires: expires, signature: String(decoding: flipped, as: UTF8.self), now: at(1_000)) == .forged)
        #expect(signer.check(name: name, expires: expires, signature: nil, now: at(1_000)) == .forged)
        #expect(signer.check(name: name, expires: nil, signature: sig, now: at(1_000)) == .forged)
        #expect(signer.check(name: name, expires: "soon", signature: sig, now: at(1_000)) == .forged)
        let other = SnapshotSigner(key: try #require(SnapshotSigner.newKey()))
        #expect(other.check(name: name, expires: expires, signature: sig, now: at(1_000)) == .forged)
    }

    @Test func onlyPictureNamesAreOpenedNothingOutsideTheFolder() throws {
        let folder = temporaryFolder()
        defer { remove(folder) }
        let name = try folder.save(Self.jpeg, kind: .jpeg, now: SystemClock().now())
        #expect(SnapshotFolder.isSnapshotName(name))
        #expect(folder.read(name: name)?.bytes == Self.jpeg)
        #expect(folder.read(name: name)?.kind == .jpeg)
        for bad in [
            "../store.sqlite", "..%2Fstore.sqlite", "/etc/passwd", "0123456789ABCDEF0123456789ABCDEF.jpg",
            "0123456789abcdef0123456789abcdef.webp", "0123456789abcdef0123456789abcdef", ".\(name).part", name + ".jpg",
            "0123456789abcdef0123456789abcde.jpg", "",
        ] {
            #expect(!SnapshotFolder.isSnapshotName(bad), "\(bad)")
            #expect(folder.read(name: bad) == nil, "\(bad)")
        }
        var info = stat()
        #expect(stat(folder.directory + "/" + name, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600, "readable by the agent's user alone")
    }

    @Test func theFolderKeepsItsBoundsOldestFirstAndForgetsWhatExpired() throws {
        let folder = temporaryFolder(maximumBytes: 350, maximumCount: 3, lifetime: 3600)
        defer { remove(folder) }
        let now = SystemClock().now()
        var names: [String] = []
        for _ in 0..<3 {
            names.append(try folder.save(Self.jpeg, kind: .jpeg, now: now))
            usleep(20_000)  // distinct file times, so "oldest" is well defined
        }
        #expect(folder.entries().map(\.name) == names, "3 × 106 bytes fit in 350")
        names.append(try folder.save(Self.jpeg, kind: .jpeg, now: now))
        #expect(folder.entries().map(\.name) == Array(names.dropFirst()), "the oldest went to keep 350 bytes")
        #expect(folder.read(name: names[0]) == nil)
        #expect(folder.prune(now: now + 3599) == 0)
        #expect(folder.prune(now: now + 3601) == 3, "an hour later all have expired")
        #expect(folder.entries().isEmpty && folder.nextExpiry() == nil)
    }

    @Test func onlyARealPictureWithinLimitsIsTaken() {
        let id = "camera.x"
        func judge(_ result: HTTPFetchResult) -> SnapshotCamera.Failure? {
            if case .failure(let failure) = SnapshotCamera.picture(result, entityID: id) { return failure }
            return nil
        }
        #expect(judge(.response(status: 200, contentType: "image/jpeg", body: Self.jpeg, cutOff: false)) == nil)
        #expect(judge(.response(status: 200, contentType: "image/png; charset=binary", body: Self.png, cutOff: false)) == nil)
        #expect(judge(.response(status: 503, contentType: "text/plain", body: [], cutOff: false)) == .status(entityID: id, 503))
        #expect(judge(.response(status: 500, contentType: "text/plain", body: [], cutOff: false))?.metricReason == "http_500")
        #expect(judge(.response(status: 200, contentType: "image/jpeg", body: Self.jpeg, cutOff: true)) == .tooLarge(entityID: id))
        #expect(judge(.response(status: 200, contentType: "text/html", body: Array("<html>".utf8), cutOff: false))
            == .notAnImage(entityID: id, contentType: "text/html"))
        #expect(judge(.response(status: 200, contentType: "image/jpeg", body: Array("not a picture".utf8), cutOff: false))
            == .notAnImage(entityID: id, contentType: "image/jpeg"), "the bytes must agree with the type")
        #expect(judge(.response(status: 200, contentType: "image/png", body: Self.jpeg, cutOff: false)) != nil)
        #expect(judge(.response(status: 200, contentType: "image/webp", body: Array("RIFF....WEBP".utf8), cutOff: false))
            == .notAnImage(entityID: id, contentType: "image/webp"), "iOS does not attach WebP")
        #expect(judge(.response(status: 200, contentType: nil, body: Self.jpeg, cutOff: false)) != nil)
        #expect(judge(.timedOut) == .timedOut(entityID: id))
        #expect(judge(.failed("refused"))?.metricReason == "unreachable")
    }

    @Test func theCameraTriesTheEntitiesBestFirstAndSignsWhatItKeeps() async throws {
        let folder = temporaryFolder()
        defer { remove(folder) }
        let signer = SnapshotSigner(key: try #require(SnapshotSigner.newKey()))
        let asked = Recorder()
        let camera = SnapshotCamera(
            fetch: { path, maximumBytes, _ in
                asked.add(path)
                #expect(maximumBytes == SnapshotFolder.maximumImageBytes)
                if path.hasSuffix("_camera") { return .response(status: 503, contentType: "text/plain", body: [], cutOff: false) }
                return .response(status: 200, contentType: "image/png", body: Self.png, cutOff: false)
            },
            cameras: { $0 == "p1s" ? ["camera.p1s_camera", "image.p1s_cover_image", "sensor.p1s_not_a_camera"] : [] },
            folder: folder, signer: signer, timeout: 3)
        let now = SystemClock().now()
        let taken = try (await camera.take(printer: "p1s", now: now)).get()
        #expect(asked.paths == ["/api/camera_proxy/camera.p1s_camera", "/api/image_proxy/image.p1s_cover_image"])
        #expect(taken.entityID == "image.p1s_cover_image" && taken.kind == .png && taken.name.hasSuffix(".png"))
        #expect(folder.read(name: taken.name)?.bytes == Self.png)
        let (name, expires, sig) = parts(taken.link)
        #expect(name == taken.name)
        #expect(signer.check(name: name, expires: expires, signature: sig, now: now) == .valid(expires: taken.expires))
        #expect(taken.expires.wholeSeconds == (now + folder.lifetime).wholeSeconds)
        let none = await camera.take(printer: "ender", now: now)
        #expect(throws: SnapshotCamera.Failure.noCamera) { try none.get() }
    }

    @Test func theWholeAttemptStaysWithinItsTime() async throws {
        let folder = temporaryFolder()
        defer { remove(folder) }
        let asked = Recorder()
        let camera = SnapshotCamera(
            fetch: { path, _, timeout in
                asked.add(path)
                try? await Task.sleep(for: .seconds(timeout))
                return .timedOut
            },
            cameras: { _ in ["camera.a", "camera.b"] }, folder: folder,
            signer: SnapshotSigner(key: try! #require(SnapshotSigner.newKey())), timeout: 0.3)
        let result = await camera.take(printer: "p", now: SystemClock().now())
        #expect(throws: SnapshotCamera.Failure.timedOut(entityID: "camera.a")) { try result.get() }
        #expect(asked.paths == ["/api/camera_proxy/camera.a"], "no time was left for the second")
    }
}

final class Recorder: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ path: String) { list.withLock { $0.append(path) } }
    var paths: [String] { list.withLock { $0 } }
}
