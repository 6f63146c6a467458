import PrintBridgeCore

/// Takes the picture for an alert: asks Home Assistant for the printer's
/// camera or image entity (`/api/camera_proxy/<id>`, `/api/image_proxy/<id>`,
/// the link's own GET with the HA token), checks that what came back is a
/// picture a phone can attach, keeps it in the folder and signs its link.
/// The entities are tried best first until one answers with a picture or
/// `timeout` seconds are over, all of them together.
public struct SnapshotCamera: Sendable {
    /// A GET to Home Assistant: path, largest body, seconds.
    public typealias Fetch = @Sendable (_ path: String, _ maximumBytes: Int, _ timeout: Double) async -> HTTPFetchResult

    private let fetch: Fetch
    private let cameras: @Sendable (_ printer: String) -> [String]
    public let folder: SnapshotFolder
    public let signer: SnapshotSigner
    public let timeout: Double

    public init(
        fetch: @escaping Fetch, cameras: @escaping @Sendable (String) -> [String], folder: SnapshotFolder,
        signer: SnapshotSigner, timeout: Double
    ) {
        self.fetch = fetch
        self.cameras = cameras
        self.folder = folder
        self.signer = signer
        self.timeout = timeout
    }

    /// A picture taken and kept.
    public struct Taken: Hashable, Sendable {
        public var printer: String
        public var entityID: String
        public var name: String
        public var kind: SnapshotImage
        public var bytes: Int
        /// The signed link, relative to the agent's address.
        public var link: String
        public var expires: EpochTime
    }

    /// Why there is no picture.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// No camera or image entity is known for the printer.
        case noCamera
        /// HA did not answer in time.
        case timedOut(entityID: String)
        /// No answer: the connection failed, or the link is not running.
        case unreachable(entityID: String, detail: String)
        /// HA answered with an error status (404 unknown, 503 camera off, 500 no picture).
        case status(entityID: String, Int)
        /// The body was bigger than a picture may be.
        case tooLarge(entityID: String)
        /// The body is not a JPEG, PNG or GIF (or not what its type says).
        case notAnImage(entityID: String, contentType: String)
        /// The picture could not be kept on disk.
        case notSaved(String)

        /// The `reason` label of `printbridge_snapshots_total`.
        public var metricReason: String {
            switch self {
            case .noCamera: return "no_camera"
            case .timedOut: return "timeout"
            case .unreachable: return "unreachable"
            case .status(_, let code): return "http_\(code)"
            case .tooLarge: return "too_large"
            case .notAnImage: return "not_an_image"
            case .notSaved: return "not_saved"
            }
        }

        public var description: String {
            switch self {
            case .noCamera: return "no camera or image entity is known for the printer"
            case .timedOut(let id): return "\(id) gave no picture in time"
            case .unreachable(let id, let detail): return "\(id): no answer from Home Assistant (\(detail))"
            case .status(let id, let code):
                let meaning = [404: "unknown entity", 503: "camera off", 500: "no picture", 401: "token refused"][code]
                return "\(id): Home Assistant answered HTTP \(code)" + (meaning.map { " (\($0))" } ?? "")
            case .tooLarge(let id): return "\(id): the picture is over \(SnapshotFolder.maximumImageBytes >> 20) MiB"
            case .notAnImage(let id, let type): return "\(id): not a JPEG, PNG or GIF picture (\(type.isEmpty ? "no type" : type))"
            case .notSaved(let detail): return "the picture could not be kept: \(detail)"
            }
        }
    }

    /// The entities that picture `printer`, best first.
    public func entities(printer: String) -> [String] {
        cameras(printer).filter { CameraEntity.proxyPath(for: $0) != nil }
    }

    /// A picture of `printer` now, or why there is none, within `timeout`.
    public func take(printer: String, now: EpochTime) async -> Result<Taken, Failure> {
        let candidates = entities(printer: printer)
        guard !candidates.isEmpty else { return .failure(.noCamera) }
        let started = MonotonicClock.seconds()
        var failure = Failure.noCamera
        for entityID in candidates {
            let left = timeout - (MonotonicClock.seconds() - started)
            guard left > 0.05 else {
                if case .noCamera = failure { failure = .timedOut(entityID: entityID) }
                break
            }
            let result = await fetch(CameraEntity.proxyPath(for: entityID)!, SnapshotFolder.maximumImageBytes, left)
            switch Self.picture(result, entityID: entityID) {
            case .success(let (bytes, kind)):
                do throws(SnapshotFolder.Failure) {
                    let name = try folder.save(bytes, kind: kind, now: now)
                    // Whole seconds, as the link says it.
                    let expires = EpochTime(seconds: Double((now + folder.lifetime).wholeSeconds))
                    return .success(
                        Taken(
                            printer: printer, entityID: entityID, name: name, kind: kind, bytes: bytes.count,
                            link: signer.link(name: name, expires: expires), expires: expires))
                } catch {
                    return .failure(.notSaved(error.description))
                }
            case .failure(let reason):
                failure = reason
            }
        }
        return .failure(failure)
    }

    /// What HA's answer is worth: a picture, or why not.
    public static func picture(_ result: HTTPFetchResult, entityID: String) -> Result<([UInt8], SnapshotImage), Failure> {
        switch result {
        case .timedOut: return .failure(.timedOut(entityID: entityID))
        case .notRunning: return .failure(.unreachable(entityID: entityID, detail: "not connected"))
        case .failed(let detail): return .failure(.unreachable(entityID: entityID, detail: detail))
        case .response(let status, let contentType, let body, let cutOff):
            guard status == 200 else { return .failure(.status(entityID: entityID, status)) }
            guard !cutOff else { return .failure(.tooLarge(entityID: entityID)) }
            guard let kind = contentType.flatMap(SnapshotImage.init(contentType:)), kind.matches(body) else {
                return .failure(.notAnImage(entityID: entityID, contentType: contentType ?? ""))
            }
            return .success((body, kind))
        }
    }
}

extension SnapshotCamera {
    /// What a request for a picture's link finds.
    public enum Lookup: Hashable, Sendable {
        /// The picture, and the seconds its link still lives.
        case image([UInt8], SnapshotImage, secondsLeft: Int)
        /// No valid signature for this name and expiry.
        case forged
        /// The link's time is over.
        case expired
        /// Not a picture's name, or its file is gone.
        case gone
    }

    /// Checks a link's `expires` and `sig` for picture `name` at `now`, then reads it.
    public func lookUp(name: String, expires: String?, signature: String?, now: EpochTime) -> Lookup {
        switch signer.check(name: name, expires: expires, signature: signature, now: now) {
        case .forged: return .forged
        case .expired: return .expired
        case .valid(let until):
            guard let (bytes, kind) = folder.read(name: name) else { return .gone }
            return .image(bytes, kind, secondsLeft: Int(until.seconds - now.seconds))
        }
    }
}
