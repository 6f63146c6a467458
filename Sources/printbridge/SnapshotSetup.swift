import AgentSettings
import ControlAPI
import DeviceStore
import HomeAssistantLink
import Logging
import PrintBridgeCore
import Snapshots
import Synchronization

/// Pictures of the print for `run`: the camera (HA's proxies through the
/// link), the folder under the state directory, the signing key from the
/// store; the agent's hook that takes one, and what the API serves.
final class SnapshotSetup: Sendable {
    let camera: SnapshotCamera
    /// The latest picture's link of each printer (the status page).
    private let latest = Mutex<[String: String]>([:])
    private let metrics: AgentMetrics
    private let logger: Logger

    /// Nil when SNAPSHOTS is off. Throws (exit 78 through `run`) when the
    /// folder cannot be made or the store gives no key.
    static func make(
        _ settings: Settings, store: DeviceStore, link: HomeAssistantLink, metrics: AgentMetrics, logger: Logger
    ) throws -> SnapshotSetup? {
        let delivery = settings.delivery
        guard delivery.snapshots else {
            logger.info("alerts go without pictures of the print (SNAPSHOTS=off)")
            return nil
        }
        let folder = SnapshotFolder(
            directory: StateDirectory.path(settings) + "/snapshots", lifetime: delivery.snapshotLinkHours * 3600,
            maximumBytes: Int(delivery.snapshotFolderMB * 1_048_576))
        let key: [UInt8]
        do {
            try folder.prepare()
            guard let made = try store.snapshotKey(make: SnapshotSigner.newKey) else {
                throw CommandFailure.system("no random bytes for the key that signs the pictures' links")
            }
            key = made
        } catch let error as SnapshotFolder.Failure {
            throw CommandFailure.config("the pictures' folder: \(error)")
        } catch let error as DeviceStore.Error {
            throw CommandFailure.config("\(error)")
        }
        folder.prune(now: SystemClock().now())
        let camera = SnapshotCamera(
            fetch: { path, maximumBytes, timeout in await link.fetch(path, maximumBytes: maximumBytes, timeout: timeout) },
            cameras: { link.cameras(printer: $0) }, folder: folder, signer: SnapshotSigner(key: key),
            timeout: delivery.snapshotTimeout)
        return SnapshotSetup(camera: camera, metrics: metrics, logger: logger)
    }

    private init(camera: SnapshotCamera, metrics: AgentMetrics, logger: Logger) {
        self.camera = camera
        self.metrics = metrics
        self.logger = logger
    }

    /// The agent's hook: a picture of `printer` for its alerts, logged and
    /// counted either way; its signed link, or nil. The file goes once its
    /// time is over (a task that sleeps until then: no wake-up before).
    func take(printer: String, now: EpochTime) async -> String? {
        switch await camera.take(printer: printer, now: now) {
        case .success(let taken):
            metrics.snapshot(outcome: "taken")
            latest.withLock { $0[printer] = taken.link }
            logger.info("picture taken for the alert", metadata: [
                "printer": "\(printer)", "ha.entity_id": "\(taken.entityID)", "snapshot.bytes": .stringConvertible(taken.bytes),
                "snapshot.type": "\(taken.kind.contentType)",
            ])
            let folder = camera.folder
            Task {
                try? await Task.sleep(for: .seconds(folder.lifetime + 1))
                folder.prune(now: SystemClock().now())
            }
            return taken.link
        case .failure(let failure):
            metrics.snapshot(outcome: "none", reason: failure.metricReason)
            let metadata: Logger.Metadata = [
                "printer": "\(printer)", "snapshot.reason": "\(failure.metricReason)", "snapshot.detail": "\(failure)",
            ]
            if case .noCamera = failure {
                logger.info("the alert goes without a picture", metadata: metadata)
            } else {
                logger.warning("the alert goes without a picture", metadata: metadata)
            }
            return nil
        }
    }

    /// What the API serves.
    var serving: SnapshotServing {
        let camera = camera
        return SnapshotServing(
            answer: { name, expires, signature in
                switch camera.lookUp(name: name, expires: expires, signature: signature, now: SystemClock().now()) {
                case .forged: return .forged
                case .expired: return .expired
                case .gone: return .gone
                case .image(let bytes, let kind, let secondsLeft):
                    return .image(bytes, contentType: kind.contentType, secondsLeft: secondsLeft)
                }
            },
            latest: { [self] in latest.withLock { $0 } })
    }
}
