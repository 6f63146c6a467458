/// What a device wants to hear about: the seed's per-device settings.
public struct NotificationPreferences: Hashable, Sendable, Codable {
    public var notificationsEnabled: Bool
    public var onStart: Bool
    public var onComplete: Bool
    public var onFailed: Bool
    public var onPaused: Bool
    public var onMilestone: Bool
    /// PrintBridge's additions: printer errors, and the bed cooled after a finish.
    public var onPrinterError: Bool
    public var onBedCooled: Bool
    /// A silent background push when a print ends, so the app refreshes its
    /// history and statistics (`Push.Event.history`).
    public var backgroundRefresh: Bool
    /// A picture of the print in the alerts that have one (complete,
    /// failed, paused, printer error), when the printer has a camera.
    public var snapshots: Bool
    /// "First Layer Done" (issue 53); off by default: the seed app has no
    /// switch for it yet, and an alert a phone cannot turn off is noise.
    public var onFirstLayer: Bool
    /// When it wants its alerts: quiet hours, its milestones, "minutes
    /// left", the re-telling of an unopened failure (`AlertSchedule`).
    public var schedule: AlertSchedule

    public init(
        notificationsEnabled: Bool = true, onStart: Bool = true, onComplete: Bool = true,
        onFailed: Bool = true, onPaused: Bool = true, onMilestone: Bool = true,
        onPrinterError: Bool = true, onBedCooled: Bool = true, backgroundRefresh: Bool = true,
        snapshots: Bool = true, schedule: AlertSchedule = AlertSchedule(), onFirstLayer: Bool = false
    ) {
        self.onFirstLayer = onFirstLayer
        self.schedule = schedule
        self.snapshots = snapshots
        self.backgroundRefresh = backgroundRefresh
        self.onPrinterError = onPrinterError
        self.onBedCooled = onBedCooled
        self.notificationsEnabled = notificationsEnabled
        self.onStart = onStart
        self.onComplete = onComplete
        self.onFailed = onFailed
        self.onPaused = onPaused
        self.onMilestone = onMilestone
    }

    public static let all = NotificationPreferences()

    /// Every switch: its name in the app's JSON, its store column, and the property.
    public static var switches: [(name: String, column: String, keyPath: WritableKeyPath<NotificationPreferences, Bool>)] {
        [
            ("notificationsEnabled", "notifications_enabled", \.notificationsEnabled), ("onStart", "on_start", \.onStart),
            ("onComplete", "on_complete", \.onComplete), ("onFailed", "on_failed", \.onFailed),
            ("onPaused", "on_paused", \.onPaused), ("onMilestone", "on_milestone", \.onMilestone),
            ("onPrinterError", "on_printer_error", \.onPrinterError), ("onBedCooled", "on_bed_cooled", \.onBedCooled),
            ("backgroundRefresh", "background_refresh", \.backgroundRefresh), ("snapshots", "snapshots", \.snapshots),
            ("onFirstLayer", "on_first_layer", \.onFirstLayer),
        ]
    }

    /// Whether an alert for `event` may go to this device. Cancelled prints
    /// follow `onFailed` (the app has no separate switch for them), and so
    /// does a printer gone offline mid-print (the print may be lost); the
    /// quiet notes that replace an alert follow that alert's switch. The
    /// silent background push follows `backgroundRefresh` alone: it shows
    /// nothing, so the master switch (`notificationsEnabled`) is not its.
    public func wants(_ event: Push.Event) -> Bool {
        if event == .history { return backgroundRefresh }
        guard notificationsEnabled else { return false }
        switch event {
        case .started: return onStart
        case .complete: return onComplete
        case .failed, .cancelled, .offline, .backOnline: return onFailed
        case .paused, .resumed: return onPaused
        case .milestone: return onMilestone
        case .printerError: return onPrinterError
        case .bedCooled: return onBedCooled
        case .firstLayer: return onFirstLayer
        case .minutesLeft: return schedule.minutesLeft != nil
        case .update, .end, .start, .history, .test, .summary, .notify: return true
        }
    }
}
