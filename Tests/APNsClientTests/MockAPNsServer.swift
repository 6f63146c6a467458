import APNsClient
import Foundation
import PrintBridgeCore
import Synchronization
@_exported import TestSupport

/// Records the back-off waits instead of sleeping them.
final class SleepRecorder: Sendable {
    private let waits = Mutex<[Double]>([])
    var recorded: [Double] { waits.withLock { $0 } }
    var sleep: @Sendable (Double) async -> Void {
        { [self] seconds in waits.withLock { $0.append(seconds) } }
    }
}

/// Token rejections the sender reported.
final class RejectionRecorder: Sendable {
    private let items = Mutex<[(String, PushOutcome.TokenAction, APNsReason)]>([])
    var recorded: [(String, PushOutcome.TokenAction, APNsReason)] { items.withLock { $0 } }
    var callback: APNsSender.TokenRejection {
        { [self] push, action, reason in items.withLock { $0.append((push.token, action, reason)) } }
    }
}

/// A device token with a behaviour prefix (see mock_apns.py): hex, 64 digits.
func token(_ prefix: String, _ salt: Int = 0) -> String {
    let tail = String(format: "%08x", salt) + String(repeating: "0", count: 64)
    return String((prefix + tail).prefix(64))
}

func alertPush(to token: String, bundle: String = MockAPNsServer.bundleID) -> Push {
    let payload = try! AlertPayload(event: .complete, prefix: "x1c", printerName: "X1C", fileName: "benchy.3mf",
                                    status: .complete, progress: 100).encoded()
    let now = SystemClock().now()
    return Push(kind: .alert, event: .complete, printerPrefix: "x1c", deviceID: "phone", token: token, tokenKind: .device,
                topic: bundle, priority: 10, collapseID: "x1c.complete", expiration: now + 3600, payload: payload,
                createdAt: now)
}

func liveActivityPush(to token: String) -> Push {
    let state = SampleState.running
    let now = SystemClock().now()
    let payload = try! LiveActivityPayload.update(state, at: now, staleAfter: 900).encoded()
    return Push(kind: .liveActivity, event: .update, printerPrefix: "x1c", deviceID: "phone", token: token,
                tokenKind: .activity, topic: MockAPNsServer.bundleID + ".push-type.liveactivity", priority: 5,
                collapseID: "x1c.activity", expiration: now + 900, payload: payload, createdAt: now)
}

import PrinterActivityContent

enum SampleState {
    static let running = PrinterActivityAttributes.ContentState(
        progress: 42, currentLayer: 100, totalLayers: 250, remainingSeconds: 1800, status: "running", nozzleTemp: 220,
        bedTemp: 65)
}
