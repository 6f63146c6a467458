/// Requests sent together with `HTTP2Client.send(_:count:)`, each written
/// and answered on the client's thread (`pb-apns`): the batch writes a
/// request's fields into memory the connection reuses as its stream
/// opens, and takes its answer lent for the length of one call. No object,
/// task, continuation or buffer a request: a fan-out's pushes go from the
/// sender's own list to the wire and their answers straight to whoever
/// judges them.
///
/// The methods run on the client's thread, one at a time, in no set order
/// between requests (or on the caller's thread when the client has already
/// stopped): keep them short, never wait in them, and never call back
/// into the client's connection from them.
public protocol HTTP2RequestBatch: AnyObject, Sendable {
    /// Writes request `position`'s fields into `fields` (empty, with room
    /// kept from earlier requests): ":path" first, then the request's own
    /// fields, lower-case. Returns its body. The client adds ":method",
    /// ":scheme", ":authority" before them and `content-length` after.
    func request(_ position: Int, writing fields: inout HTTP2FieldBuffer) -> [UInt8]

    /// The server answered request `position`; `answer` is valid only during the call.
    func answered(_ position: Int, with answer: borrowing HTTP2Answer)

    /// Request `position` got no answer, and will not.
    func failed(_ position: Int, with error: HTTP2TransportError)
}

/// A server's answer, lent for the length of one call: its status, fields
/// and body point into the stream's memory, which the next stream reuses.
/// `response` copies it.
public struct HTTP2Answer: ~Copyable {
    public let status: Int
    /// The fields, encoded as `HTTP2Fields` holds them (":status" left out).
    let fields: UnsafeRawBufferPointer
    public let body: UnsafeRawBufferPointer

    init(status: Int, fields: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// Lends `response`'s parts as an answer to `body`.
    public static func lending<Result>(_ response: HTTP2Response, _ body: (borrowing HTTP2Answer) -> Result) -> Result {
        response.fields.withEncoded { fields in
            response.body.withUnsafeBytes { bytes in body(HTTP2Answer(status: response.status, fields: fields, body: bytes)) }
        }
    }

    /// The first field named `name`, as text; `known` itself when the value
    /// is the same text (an answer's `apns-id` is the request's: no new string).
    public func value(_ name: StaticString, reusing known: String) -> String? {
        HTTP2Fields.value(name, in: fields, reusing: known)
    }

    /// A copy that outlives the call.
    public var response: HTTP2Response {
        HTTP2Response(status: status, fields: HTTP2Fields(encoded: fields), body: Array(body))
    }
}
