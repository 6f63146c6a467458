/// A request waiting for an answer, as the client's loop holds it.
struct HTTP2Submission {
    var request: HTTP2Request
    var continuation: CheckedContinuation<HTTP2Response, any Error>
    /// Times a server refused it unprocessed (it is sent again, a bounded number of times).
    var refusals = 0
}
