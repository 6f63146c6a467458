/// A request waiting for an answer, as the client's loop holds it.
struct HTTP2Submission {
    var request: HTTP2Request
    var continuation: HTTP2ResponseContinuation
    /// Times a server refused it unprocessed (it is sent again, a bounded number of times).
    var refusals = 0
}

#if DEBUG
/// Checked in debug builds (the tests): a request answered twice, or never,
/// is reported. Unchecked in release: the checked kind allocates a canary
/// object for every request and checks it on resume.
typealias HTTP2ResponseContinuation = CheckedContinuation<HTTP2Response, any Error>

func withResponseContinuation(_ body: (HTTP2ResponseContinuation) -> Void) async throws -> HTTP2Response {
    try await withCheckedThrowingContinuation(body)
}
#else
typealias HTTP2ResponseContinuation = UnsafeContinuation<HTTP2Response, any Error>

func withResponseContinuation(_ body: (HTTP2ResponseContinuation) -> Void) async throws -> HTTP2Response {
    try await withUnsafeThrowingContinuation(body)
}
#endif
