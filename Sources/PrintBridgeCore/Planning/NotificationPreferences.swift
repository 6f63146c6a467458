/// What a device wants to hear about: the seed's per-device settings.
public struct NotificationPreferences: Hashable, Sendable, Codable {
    public var notificationsEnabled: Bool
    public var onStart: Bool
    public var onComplete: Bool
    public var onFailed: Bool
    public var onPaused: Bool
    public var onMilestone: Bool

    public init(
        notificationsEnabled: Bool = true, onStart: Bool = true, onComplete: Bool = true,
        onFailed: Bool = true, onPaused: Bool = true, onMilestone: Bool = true
    ) {
        self.notificationsEnabled = notificationsEnabled
        self.onStart = onStart
        self.onComplete = onComplete
        self.onFailed = onFailed
        self.onPaused = onPaused
        self.onMilestone = onMilestone
    }

    public static let all = NotificationPreferences()

    /// Whether an alert for `event` may go to this device. Cancelled prints
    /// follow `onFailed` (the app has no separate switch for them).
    public func wants(_ event: Push.Event) -> Bool {
        guard notificationsEnabled else { return false }
        switch event {
        case .started: return onStart
        case .complete: return onComplete
        case .failed, .cancelled: return onFailed
        case .paused: return onPaused
        case .milestone: return onMilestone
        case .update, .end, .start: return true
        }
    }
}
