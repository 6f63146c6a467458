import PrintBridgeCore

/// The pictures of the prints as the API serves them: the agent's signed
/// links checked and the folder read by whoever takes the pictures (the
/// `Snapshots` module, wired by `run`); the API itself knows no key.
public struct SnapshotServing: Sendable {
    /// What a request for picture `name` with its link's `expires` and `sig` gets.
    public var answer: @Sendable (_ name: String, _ expires: String?, _ signature: String?) -> SnapshotAnswer
    /// The latest picture of each printer, by prefix: its signed link (the status page).
    public var latest: @Sendable () -> [String: String]

    public init(
        answer: @escaping @Sendable (String, String?, String?) -> SnapshotAnswer,
        latest: @escaping @Sendable () -> [String: String]
    ) {
        self.answer = answer
        self.latest = latest
    }
}

/// The answer to a picture's link.
public enum SnapshotAnswer: Sendable, Hashable {
    /// The picture: its bytes, content type and seconds its link still lives.
    case image([UInt8], contentType: String, secondsLeft: Int)
    /// No valid signature for this name and expiry.
    case forged
    /// The link's time is over.
    case expired
    /// Not a picture's name, or its file is gone (removed to keep the folder's bounds).
    case gone
}

extension ControlAPI {
    /// `GET /api/snapshots/{name}?expires=…&sig=…`: the picture, for a link
    /// the agent signed and whose time is not over.
    func snapshot(_ name: String, _ request: HTTPRequest) throws -> HTTPResponse {
        guard let snapshots else { return APIError.response(404, "This agent takes no pictures (SNAPSHOTS=off)") }
        guard let query = QueryString(request.query) else {
            throw Invalid(details: ["query": ["is not a valid percent-encoded query string"]])
        }
        switch snapshots.answer(name, query["expires"], query["sig"]) {
        case .image(let bytes, let contentType, let secondsLeft):
            var response = HTTPResponse(status: 200, body: "", contentType: contentType)
            response.bytes = bytes
            response.extraHeaders = [("Cache-Control", "private, max-age=\(max(0, secondsLeft))")]
            return response
        case .forged:
            return APIError.response(403, "This picture link is not valid (wrong or missing signature)")
        case .expired:
            return APIError.response(410, "This picture link has expired")
        case .gone:
            return APIError.response(404, "No such picture (it may have been removed to make room)")
        }
    }
}
