import PrintBridgeCore

extension APIJSON {
    /// A phone as the app reads it back for its settings screen (`GET
    /// /api/devices/{deviceId}`, and the registration's answer): the
    /// printers it follows (none: every printer), every switch by the name
    /// the settings PATCH takes, when it wants its alerts (`schedule`:
    /// `AlertSchedule`), its language, which tokens it has (each
    /// shortened: never a whole token), the printers its Live Activities
    /// run for (by token, and by the printer's broadcast channel), and
    /// whether APNs refused its token.
    public static func device(_ device: Device) -> String {
        JSONText.object([
            ("id", JSONText.quoted(device.id)),
            ("printerPrefixes", "[" + device.printerPrefixes.sorted().map(JSONText.quoted).joined(separator: ",") + "]"),
            ("printerName", device.printerName.map(JSONText.quoted) ?? "null"),
            ("settings", JSONText.object(NotificationPreferences.switches.map { entry in
                (entry.name, device.preferences[keyPath: entry.keyPath] ? "true" : "false")
            })),
            // Beside the switches, so `settings` stays the seed's object of booleans.
            ("schedule", device.preferences.schedule.json),
            ("language", device.language.map(JSONText.quoted) ?? "null"),
            ("tokens", JSONText.object([
                ("apns", JSONText.quoted(TokenFormat.shortened(device.apnsToken))),
                ("pushToStart", device.pushToStartToken.map { JSONText.quoted(TokenFormat.shortened($0)) } ?? "null"),
            ])),
            ("liveActivities", "[" + device.activityTokens.sorted { $0.key < $1.key }.map { prefix, token in
                JSONText.object([
                    ("printerPrefix", JSONText.quoted(prefix)), ("token", JSONText.quoted(TokenFormat.shortened(token))),
                ])
            }.joined(separator: ",") + "]"),
            ("activityChannels", "[" + device.channelPrinters.sorted().map(JSONText.quoted).joined(separator: ",") + "]"),
            ("disabled", device.isDisabled ? "true" : "false"),
        ])
    }
}
