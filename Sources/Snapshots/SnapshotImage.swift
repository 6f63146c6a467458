/// The kinds of picture a notification can carry: iOS attaches JPEG, PNG
/// and GIF images (`UNNotificationAttachment`; WebP and others are not
/// among its supported types). What HA says a body is must agree with the
/// body's own first bytes: a login page or an error text sent as
/// `image/jpeg` is not a picture.
public enum SnapshotImage: String, Sendable, Hashable, CaseIterable {
    case jpeg = "jpg"
    case png
    case gif

    /// The file name's extension (the phone takes the type from it).
    public var fileExtension: String { rawValue }

    public var contentType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .gif: return "image/gif"
        }
    }

    /// The kind a `Content-Type` names (parameters and case ignored).
    public init?(contentType: String) {
        let type = contentType.split(separator: ";").first.map { $0.trimmingWhitespace.lowercased() } ?? ""
        switch type {
        case "image/jpeg", "image/jpg": self = .jpeg
        case "image/png": self = .png
        case "image/gif": self = .gif
        default: return nil
        }
    }

    /// The kind an extension names (`jpg`, `png`, `gif`).
    public init?(fileExtension: some StringProtocol) {
        self.init(rawValue: String(fileExtension))
    }

    /// Whether `bytes` begin as this kind's files do (JPEG's SOI marker,
    /// PNG's signature, GIF87a/GIF89a).
    public func matches(_ bytes: [UInt8]) -> Bool {
        switch self {
        case .jpeg: return bytes.starts(with: [0xFF, 0xD8, 0xFF])
        case .png: return bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case .gif: return bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8))
        }
    }
}
