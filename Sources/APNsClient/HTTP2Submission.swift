/// Takes the answers of requests sent with `HTTP2Client.send(_:to:)`: one
/// call for each request, with the request's position in what was sent.
///
/// Called on the client's thread (`pb-apns`) as answers arrive, or on the
/// sender's thread when the client had already stopped: keep it short and
/// never wait in it. No task and no continuation a request: a fan-out's
/// answers go straight to whoever counts them.
public protocol HTTP2ResponseReceiver: AnyObject, Sendable {
    func received(_ result: Result<HTTP2Response, HTTP2TransportError>, tag: Int)
}

/// A request waiting for an answer, as the client's loop holds it.
struct HTTP2Submission {
    var request: HTTP2Request
    var reply: Reply
    /// Times a server refused it unprocessed (it is sent again, a bounded number of times).
    var refusals = 0

    /// Where the answer goes: a caller suspended in `send(_:)`, or a receiver.
    enum Reply {
        case waiting(HTTP2ResponseContinuation)
        case receiver(any HTTP2ResponseReceiver, tag: Int)
    }

    init(request: HTTP2Request, reply: Reply) {
        self.request = request
        self.reply = reply
    }

    /// Hands the answer over (once).
    func answer(_ response: HTTP2Response) {
        switch reply {
        case .waiting(let continuation): continuation.resume(returning: response)
        case .receiver(let receiver, let tag): receiver.received(.success(response), tag: tag)
        }
    }

    /// Fails the request with `error` (once).
    func fail(_ error: HTTP2TransportError) {
        switch reply {
        case .waiting(let continuation): continuation.resume(throwing: error)
        case .receiver(let receiver, let tag): receiver.received(.failure(error), tag: tag)
        }
    }
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
