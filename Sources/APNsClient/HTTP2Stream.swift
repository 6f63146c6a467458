import PrintBridgeCore

/// A request on its way: what to send, where its answer goes, and how
/// often a server refused it unprocessed (it is sent again, a bounded
/// number of times, `HTTP2Client.maximumRefusals`).
struct HTTP2Exchange: Sendable {
    let request: HTTP2Request
    let completion: HTTP2Completion
    var refusals = 0

    func finish(_ result: Result<HTTP2Response, HTTP2TransportError>) { completion(result) }
}

/// One request in flight on the HTTP/2 session: its exchange, when it
/// started, and the answer as it arrives. Used on the client's thread only.
final class HTTP2Stream {
    let exchange: HTTP2Exchange
    let started: EpochTime
    /// Its HEADERS went out (until then the server cannot have seen it).
    var sent = false
    /// How much of the request's body nghttp2 has taken.
    var bodyOffset = 0
    /// The answer: status (0 until a final one came), headers, body.
    var status = 0
    var headers: [String: String] = [:]
    var body: [UInt8] = []

    init(_ exchange: HTTP2Exchange, started: EpochTime) {
        self.exchange = exchange
        self.started = started
    }

    /// The answer as it came, for the caller.
    var response: HTTP2Response { HTTP2Response(status: status, headers: headers, body: body) }
}
