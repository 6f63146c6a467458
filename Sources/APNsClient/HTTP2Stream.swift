import PrintBridgeCore

/// One request on the HTTP/2 session: its submission, when it started, and
/// the answer as it arrives.
final class HTTP2Stream {
    let submission: HTTP2Submission
    let started: EpochTime
    /// Its HEADERS went out (until then the server cannot have seen it).
    var sent = false
    var status = 0
    var fields = HTTP2Fields()
    var body: [UInt8] = []
    /// How much of the request's body nghttp2 has taken.
    var bodyOffset = 0

    init(_ submission: HTTP2Submission, started: EpochTime) {
        self.submission = submission
        self.started = started
    }
}
