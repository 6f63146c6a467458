/// APNs' hard limits, checked on every push the agent builds.
public enum PayloadLimits {
    /// Largest payload APNs accepts for alert and Live Activity pushes.
    public static let maximumPayloadBytes = 4096
    /// Largest `apns-collapse-id`.
    public static let maximumCollapseIDBytes = 64

    /// A collapse id of at most 64 bytes for `prefix` and `event`. Long prefixes
    /// are cut and given a short hash so two printers never share an id.
    public static func collapseID(prefix: String, event: String) -> String {
        let full = "\(prefix).\(event)"
        guard full.utf8.count > maximumCollapseIDBytes else { return full }
        let hash = String(fnv1a(prefix), radix: 16)
        let room = maximumCollapseIDBytes - event.utf8.count - hash.utf8.count - 2
        var cut = ""
        for char in prefix {
            if cut.utf8.count + String(char).utf8.count > room { break }
            cut.append(char)
        }
        return "\(cut)~\(hash).\(event)"
    }

    static func fnv1a(_ text: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return hash
    }
}
