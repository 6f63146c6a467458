/// A phone registered with the agent.
public struct Device: Hashable, Sendable {
    public var id: String
    /// The APNs device token (hex) for alert pushes.
    public var apnsToken: String
    /// Printers this device follows; empty means every printer.
    public var printerPrefixes: Set<String>
    /// The name the app gave the printer it registered for.
    public var printerName: String?
    public var preferences: NotificationPreferences
    /// The language the phone's alerts are written in (`de`, `fr-CA`:
    /// PrintBridge's extension to registration); nil or a language without
    /// a catalog: the `language` setting's.
    public var language: String?
    /// Live Activity update tokens, one per printer with a running activity.
    public var activityTokens: [String: String]
    /// Printers whose Live Activity this phone follows by the printer's
    /// broadcast channel (iOS 18: started with `pushType: .channel(id)`)
    /// rather than by an activity token: it gets the channel's one
    /// broadcast an update, never a per-token push as well.
    public var channelPrinters: Set<String> = []
    /// iOS 17.2+ push-to-start token: lets a print start begin the activity remotely.
    public var pushToStartToken: String?
    /// APNs refused the device token (BadDeviceToken, DeviceTokenNotForTopic):
    /// kept, but sent nothing until it registers again.
    public var isDisabled = false
    /// False for a Live Activity the app registered without saying which
    /// phone runs it (the seed app sends no device id): it stands alone,
    /// receiving its printer's Live Activity pushes and no alerts.
    public var receivesAlerts = true

    public init(
        id: String, apnsToken: String, printerPrefixes: Set<String> = [], printerName: String? = nil,
        preferences: NotificationPreferences = .all, activityTokens: [String: String] = [:],
        pushToStartToken: String? = nil
    ) {
        self.id = id
        self.apnsToken = apnsToken
        self.printerPrefixes = printerPrefixes
        self.printerName = printerName
        self.preferences = preferences
        self.activityTokens = activityTokens
        self.pushToStartToken = pushToStartToken
    }

    /// Whether this phone has a Live Activity for `prefix`, by token or by channel.
    public func hasActivity(for prefix: String) -> Bool {
        activityTokens[prefix] != nil || channelPrinters.contains(prefix)
    }

    /// Whether alerts about `prefix` go to this device.
    public func follows(_ prefix: String) -> Bool {
        receivesAlerts && !isDisabled && (printerPrefixes.isEmpty || printerPrefixes.contains(prefix))
    }

    /// A Live Activity known only by its token and printer.
    public static func activity(token: String, printerPrefix: String) -> Device {
        var device = Device(
            id: "activity-" + String(token.prefix(16)), apnsToken: "", printerPrefixes: [printerPrefix],
            activityTokens: [printerPrefix: token])
        device.receivesAlerts = false
        return device
    }
}
