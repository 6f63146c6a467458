/// A plain HTTP GET to Home Assistant beside the WebSocket (a camera's
/// picture from `/api/camera_proxy/<entity>`): what came back.
public enum HTTPFetchResult: Sendable, Hashable {
    /// HA answered. `body` holds at most the limit asked for; `cutOff` says
    /// the body went on beyond it (the transfer was stopped there).
    case response(status: Int, contentType: String?, body: [UInt8], cutOff: Bool)
    /// No answer: the connection failed or closed early (libwebsockets' words).
    case failed(String)
    /// No whole answer within the time given.
    case timedOut
    /// The link is stopping or not started: nothing was asked.
    case notRunning
}
