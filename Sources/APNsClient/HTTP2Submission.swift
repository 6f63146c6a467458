/// Requests waiting for a stream, as the client's loop holds them: a run
/// of one batch's positions, taken from the front one at a time.
struct HTTP2Submission {
    let batch: any HTTP2RequestBatch
    /// The next position to send, and the end of the run.
    var next: Int
    let end: Int
    /// Times a server refused it unprocessed (it is sent again, a bounded
    /// number of times): a refused request comes back as a run of one.
    var refusals = 0

    init(_ batch: any HTTP2RequestBatch, positions: Range<Int>, refusals: Int = 0) {
        self.batch = batch
        next = positions.lowerBound
        end = positions.upperBound
        self.refusals = refusals
    }

    var isEmpty: Bool { next >= end }

    /// Fails every position not yet sent with `error`.
    func fail(_ error: HTTP2TransportError) {
        for position in next..<end { batch.failed(position, with: error) }
    }
}

/// One request sent with `HTTP2Client.send(_:)`: a batch of one whose
/// answer resumes the caller.
final class SingleRequest: HTTP2RequestBatch, @unchecked Sendable {
    // @unchecked Sendable: `request` is immutable; the continuation is
    // resumed once, by whichever of `answered` and `failed` comes.
    private let fields: HTTP2Fields
    private let body: [UInt8]
    private let continuation: HTTP2ResponseContinuation

    init(_ request: HTTP2Request, continuation: HTTP2ResponseContinuation) {
        fields = request.fields
        body = request.body
        self.continuation = continuation
    }

    func request(_ position: Int, writing fields: inout HTTP2FieldBuffer) -> [UInt8] {
        fields.append(contentsOf: self.fields)
        return body
    }

    func answered(_ position: Int, with answer: borrowing HTTP2Answer) {
        continuation.resume(returning: answer.response)
    }

    func failed(_ position: Int, with error: HTTP2TransportError) {
        continuation.resume(throwing: error)
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
