/// What the app may ask a printer to do from a notification: pressed as the
/// printer's own button entity in Home Assistant (`button.press`), never
/// sent to the printer any other way.
public enum PrinterAction: String, CaseIterable, Hashable, Sendable {
    case pause, resume, stop

    /// Why the action does not fit a printer in `status` (nil: it fits).
    /// HA presses a button it finds unavailable by doing nothing and still
    /// answers success (`helpers/service.py`, `entity_service_call` skips
    /// unavailable entities), and ha-bambulab makes its buttons available
    /// only in these states (`button.py`: pause while RUNNING, resume while
    /// PAUSE, stop in either), so the agent refuses what would be a silent
    /// no-op rather than report it done.
    public func refusal(status: PrintStatus?) -> String? {
        let fits: Bool
        switch self {
        case .pause: fits = status == .running
        case .resume: fits = status == .paused
        case .stop: fits = status == .running || status == .paused || status == .preparing
        }
        guard !fits else { return nil }
        let now = status.map { "it is \($0.rawValue)" } ?? "its status is not known"
        switch self {
        case .pause: return "Only a running print can be paused; \(now)"
        case .resume: return "Only a paused print can be resumed; \(now)"
        case .stop: return "No print to stop; \(now)"
        }
    }
}

/// The button entities of printers, by printer prefix and action, as the
/// entity registry and the `get_states` snapshot show them.
public typealias PrinterButtons = [String: [PrinterAction: String]]

/// A camera or image entity a profile's printers may have: its domain
/// (`camera`: `/api/camera_proxy`, `image`: `/api/image_proxy`) and the end
/// of its object id after the printer's name.
public struct CameraEntity: Hashable, Sendable {
    public var domain: String
    public var suffix: String

    public init(_ domain: String, _ suffix: String) {
        self.domain = domain
        self.suffix = suffix
    }

    /// Where HA serves an entity's picture: `/api/camera_proxy/<id>` for a
    /// camera, `/api/image_proxy/<id>` for an image entity; nil for others.
    public static func proxyPath(for entityID: String) -> String? {
        if entityID.hasPrefix("camera.") { return "/api/camera_proxy/" + entityID }
        if entityID.hasPrefix("image.") { return "/api/image_proxy/" + entityID }
        return nil
    }
}

/// The camera and image entities of printers, best first, by printer prefix.
public typealias PrinterCameras = [String: [String]]
