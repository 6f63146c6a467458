extension Push.Event {
    /// The alerts a picture of the print belongs in: how it ended, why it
    /// stopped (a pause, a printer error), its first layer (the picture is
    /// the point). A start, a milestone or a quiet note goes without.
    public var mayCarrySnapshot: Bool {
        switch self {
        case .complete, .failed, .paused, .printerError, .firstLayer: return true
        default: return false
        }
    }
}

extension AlertPayload {
    /// The key of the picture's link in an alert, beside `aps` (the
    /// Notification Service Extension reads it; docs/notifications.md).
    public static let snapshotKey = "snapshotURL"

    /// `payload`, an alert's JSON body, with a picture: `aps.mutable-content`
    /// 1 (iOS hands the alert to the app's Notification Service Extension)
    /// and the picture's link under `snapshotKey`. Nil when `payload` is not
    /// an alert's body or the result would exceed APNs' 4096 bytes: the alert
    /// then goes as it was.
    public static func addingSnapshot(link: String, to payload: [UInt8]) -> [UInt8]? {
        guard case .object(var members)? = try? JSONParser.parse(payload), case .object(var aps)? = members["aps"],
            aps["alert"] != nil
        else { return nil }
        aps["mutable-content"] = 1
        members["aps"] = .object(aps)
        members[snapshotKey] = .string(link)
        let bytes = Array(JSONText.encode(.object(members)).utf8)
        return bytes.count <= PayloadLimits.maximumPayloadBytes ? bytes : nil
    }
}

/// What the agent's picture links say about themselves.
public enum SnapshotLink {
    /// The expiry a signed link names (`expires=`, unix seconds), for lists
    /// that show a link only while it lives; nil when it names none.
    public static func expiry(of link: String) -> EpochTime? {
        guard let query = link.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in query.split(separator: "&") where pair.hasPrefix("expires=") {
            return Int(pair.dropFirst("expires=".count)).map { EpochTime(seconds: Double($0)) }
        }
        return nil
    }
}
