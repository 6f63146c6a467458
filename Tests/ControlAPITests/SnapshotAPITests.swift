import ControlAPI
import DeviceStore
import Foundation
import FoundationNetworking
import PrintBridgeCore
import Snapshots
import Testing

/// GET /api/snapshots/{name} as a phone's Notification Service Extension
/// calls it (no API token: the signed link is the credential), through a
/// real HTTP client, with a real key and folder.
@Suite struct SnapshotAPITests {
    let server: HTTPServer
    let camera: SnapshotCamera
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 2000) + [0xFF, 0xD9]

    init() throws {
        let directory = NSTemporaryDirectory() + "printbridge-snapshots-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let folder = SnapshotFolder(directory: directory + "/snapshots", lifetime: 3600, maximumBytes: 1 << 20)
        try folder.prepare()
        let camera = SnapshotCamera(
            fetch: { _, _, _ in .notRunning }, cameras: { _ in [] }, folder: folder,
            signer: SnapshotSigner(key: try #require(SnapshotSigner.newKey())), timeout: 3)
        self.camera = camera
        let serving = SnapshotServing(
            answer: { name, expires, signature in
                switch camera.lookUp(name: name, expires: expires, signature: signature, now: SystemClock().now()) {
                case .forged: return .forged
                case .expired: return .expired
                case .gone: return .gone
                case .image(let bytes, let kind, let left): return .image(bytes, contentType: kind.contentType, secondsLeft: left)
                }
            }, latest: { [:] })
        let api = ControlAPI(
            store: try DeviceStore(directory: directory), apiToken: "secret-token-0123456789",
            apns: .init(configured: true, bundleID: "b", production: false), snapshots: serving)
        server = try HTTPServer(host: "127.0.0.1", port: 0) { api.handle($0) }
        try server.start()
    }

    func get(_ path: String) async throws -> (status: Int, data: Data, headers: [AnyHashable: Any]) {
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, data, http.allHeaderFields)
    }

    func error(_ data: Data) -> String? {
        ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["error"] as? String
    }

    @Test func theSignedLinkServesThePictureWithoutAToken() async throws {
        let now = SystemClock().now()
        let name = try camera.folder.save(Self.jpeg, kind: .jpeg, now: now)
        let link = camera.signer.link(name: name, expires: now + 600)
        let reply = try await get(link)
        #expect(reply.status == 200)
        #expect(Array(reply.data) == Self.jpeg)
        #expect(reply.headers["Content-Type"] as? String == "image/jpeg")
        let cache = try #require(reply.headers["Cache-Control"] as? String)
        #expect(cache.hasPrefix("private, max-age=") && (Int(cache.dropFirst("private, max-age=".count)) ?? 0) > 590)
    }

    @Test func forgedTamperedExpiredAndOutsideLinksGetAClearAnswerAndNoPicture() async throws {
        let now = SystemClock().now()
        let name = try camera.folder.save(Self.jpeg, kind: .jpeg, now: now)
        let link = camera.signer.link(name: name, expires: now + 600)
        let signature = String(link[link.range(of: "&sig=")!.upperBound...])
        let expires = (now + 600).wholeSeconds
        // Tampered: a later expiry with the old signature; another signature; none.
        var reply = try await get("/api/snapshots/\(name)?expires=\(expires + 86_400)&sig=\(signature)")
        #expect(reply.status == 403 && error(reply.data)?.contains("not valid") == true)
        reply = try await get("/api/snapshots/\(name)?expires=\(expires)&sig=AAAA\(signature.dropFirst(4))")
        #expect(reply.status == 403)
        reply = try await get("/api/snapshots/\(name)")
        #expect(reply.status == 403)
        // Expired: signed, but its time is over.
        reply = try await get(camera.signer.link(name: name, expires: now + -1))
        #expect(reply.status == 410 && error(reply.data)?.contains("expired") == true)
        // Outside the folder, or no such picture: 404 (never a file outside it).
        for outside in ["..%2Fprintbridge.sqlite3", "printbridge.sqlite3", "..", "%2e%2e%2fprintbridge.sqlite3"] {
            reply = try await get(camera.signer.link(name: outside, expires: now + 600))
            // 404, or 401 where the path folds out of /api/snapshots (a stranger under /api).
            #expect([404, 401].contains(reply.status), "\(outside)")
            #expect(!reply.data.contains(Array("SQLite".utf8)))
        }
        reply = try await get(camera.signer.link(name: "0123456789abcdef0123456789abcdef.jpg", expires: now + 600))
        #expect(reply.status == 404 && error(reply.data)?.contains("No such picture") == true)
        // A query that says nothing valid: no picture.
        reply = try await get("/api/snapshots/\(name)?expires=%zz&sig=")
        #expect(reply.status == 403)
        // Other methods are not served.
        var post = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(link)")!)
        post.httpMethod = "DELETE"
        let (_, response) = try await URLSession.shared.data(for: post)
        #expect((response as! HTTPURLResponse).statusCode == 405)
    }

    @Test func aStrangerStillLearnsNothingElseUnderTheAPI() async throws {
        let reply = try await get("/api/nothing")
        #expect(reply.status == 401)
        let printers = try await get("/api/printers")
        #expect(printers.status == 401)
    }
}
