#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Live Activity attributes of the PrinterMonitor iOS app, shared with the
/// agent so the payloads it pushes always decode on the phone.
///
/// Field names and types are exactly those of the app's
/// `PrinterActivityAttributes` (seeds/phase5-live-activities-plan.md): the
/// agent encodes `ContentState` with these very types, and iOS decodes the
/// `content-state` of a push with a plain `JSONDecoder` into them. Renaming or
/// retyping a field here is a breaking change for every installed app.
public struct PrinterActivityAttributes: Codable, Hashable, Sendable {
    // Static data: set when the activity starts, never changes.
    public let filename: String
    public let startTime: Date
    public let printerName: String
    public let printerModel: String
    public let entityPrefix: String

    public init(
        filename: String, startTime: Date, printerName: String, printerModel: String,
        entityPrefix: String
    ) {
        self.filename = filename
        self.startTime = startTime
        self.printerName = printerName
        self.printerModel = printerModel
        self.entityPrefix = entityPrefix
    }

    /// The dynamic part of the activity, replaced by every `update` / `end` push.
    public struct ContentState: Codable, Hashable, Sendable {
        /// Percent complete, 0–100.
        public let progress: Int
        public let currentLayer: Int
        public let totalLayers: Int
        public let remainingSeconds: Int
        /// running, paused, failed, complete, cancelled.
        public let status: String
        public let nozzleTemp: Int
        public let bedTemp: Int

        public init(
            progress: Int, currentLayer: Int, totalLayers: Int, remainingSeconds: Int,
            status: String, nozzleTemp: Int, bedTemp: Int
        ) {
            self.progress = progress
            self.currentLayer = currentLayer
            self.totalLayers = totalLayers
            self.remainingSeconds = remainingSeconds
            self.status = status
            self.nozzleTemp = nozzleTemp
            self.bedTemp = bedTemp
        }

        /// "1h 5m" or "42m", as the app shows it.
        public var formattedTimeRemaining: String {
            let hours = remainingSeconds / 3600
            let minutes = (remainingSeconds % 3600) / 60
            if hours > 0 {
                return "\(hours)h \(minutes)m"
            }
            return "\(minutes)m"
        }

        /// When the print should finish, counted from now.
        public var estimatedCompletion: Date {
            Date().addingTimeInterval(TimeInterval(remainingSeconds))
        }
    }
}

#if canImport(ActivityKit)
import ActivityKit

/// The app's activity type (`Activity<PrinterActivityAttributes>`); ActivityKit
/// has Live Activities from iOS 16.1.
@available(iOS 16.1, *)
extension PrinterActivityAttributes: ActivityAttributes {}
#endif
