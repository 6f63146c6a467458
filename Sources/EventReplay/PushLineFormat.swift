import PrintBridgeCore

/// How replay prints a push: one line each.
public enum PushLineFormat: String, CaseIterable, Sendable {
    /// One JSON object per line: at, printer, event, device (shortened),
    /// token_kind, push_type, topic, priority, collapse_id, expiration, payload.
    case json
    /// A short human-readable line.
    case text

    public func line(for push: Push) -> String {
        switch self {
        case .json:
            return JSONText.object([
                ("at", JSONText.quoted(ISO8601.format(push.createdAt))),
                ("printer", JSONText.quoted(push.printerPrefix)),
                ("event", JSONText.quoted(push.event.rawValue)),
                ("device", JSONText.quoted(push.shortToken)),
                ("token_kind", JSONText.quoted(push.tokenKind.rawValue)),
                ("push_type", JSONText.quoted(push.kind.rawValue)),
                ("topic", JSONText.quoted(push.topic)),
                ("priority", String(push.priority)),
                ("collapse_id", push.collapseID.map(JSONText.quoted) ?? "null"),
                ("expiration", String(push.expiration.wholeSeconds)),
                ("payload", push.payloadText),
            ])
        case .text:
            let time = ISO8601.format(push.createdAt)
            return "\(time)  \(push.printerPrefix)  \(push.event.rawValue) → \(push.shortToken) "
                + "[\(push.kind.rawValue), p\(push.priority)]  \(summary(of: push))"
        }
    }

    private func summary(of push: Push) -> String {
        guard let json = try? JSONParser.parse(push.payload), let aps = json["aps"] else { return "" }
        if let title = aps["alert"]?["title"]?.stringValue, let body = aps["alert"]?["body"]?.stringValue {
            return "\(title) — \(body)"
        }
        if let state = aps["content-state"] {
            let progress = state["progress"]?.intValue ?? 0
            let status = state["status"]?.stringValue ?? "?"
            let layer = state["currentLayer"]?.intValue ?? 0
            let total = state["totalLayers"]?.intValue ?? 0
            let remaining = state["remainingSeconds"]?.intValue ?? 0
            return "\(status) \(progress)% layer \(layer)/\(total), \(remaining / 60) min left"
        }
        if aps["content-available"]?.intValue == 1, let state = json["printerState"] {
            // A silent background push: what the app is told to refresh.
            let type = state["type"]?.stringValue ?? "?"
            return "silent: \(type) \(state["outcome"]?.stringValue ?? state["status"]?.stringValue ?? "")"
        }
        return ""
    }
}
