import CLibWebSockets
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP GET to Home Assistant on the link's libwebsockets context (so
/// it shares the WebSocket's TLS settings and thread): asked for from any
/// thread, run and answered on the link's thread.
final class LinkFetch {
    let id: Int
    /// The C string libwebsockets' connect info points into, freed with this.
    let path: UnsafeMutablePointer<CChar>
    let maximumBytes: Int
    /// Monotonic time by which the whole answer must be in.
    let deadline: EpochTime
    private var completion: (@Sendable (HTTPFetchResult) -> Void)?
    var wsi: OpaquePointer?
    var status = 0
    var contentType: String?
    var body: [UInt8] = []
    var cutOff = false

    init(id: Int, path: String, maximumBytes: Int, deadline: EpochTime, completion: @escaping @Sendable (HTTPFetchResult) -> Void) {
        self.id = id
        self.path = strdup(path)!
        self.maximumBytes = maximumBytes
        self.deadline = deadline
        self.completion = completion
    }

    deinit {
        free(path)
        completion?(.notRunning)
    }

    var isFinished: Bool { completion == nil }

    /// Answers once; later calls do nothing.
    func finish(_ result: HTTPFetchResult) {
        completion?(result)
        completion = nil
    }

    /// The answer as received so far, once HA finished it (or it was cut off).
    var response: HTTPFetchResult {
        .response(status: status, contentType: contentType, body: body, cutOff: cutOff)
    }

    /// Takes part of the body; false once it went beyond the limit (the
    /// connection is then closed).
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let room = maximumBytes - body.count
        body.append(contentsOf: bytes.prefix(max(0, room)))
        if bytes.count > room { cutOff = true }
        return !cutOff
    }

    /// A tag for libwebsockets' per-connection user data: the fetch's id (never 0).
    var tag: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: id)! }

    static func id(fromTag tag: UnsafeMutableRawPointer?) -> Int? {
        tag.map { Int(bitPattern: $0) }
    }
}

/// libwebsockets' HTTP client callbacks for a fetch (`linkCallback` routes
/// the connections tagged with a fetch id here).
func fetchCallback(
    _ link: HomeAssistantLink, _ fetch: LinkFetch, _ wsi: OpaquePointer, _ reason: lws_callback_reasons,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    switch reason {
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
        guard let input else { return -1 }
        let position = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = position.pointee else { return -1 }
        let value = Array("Bearer \(link.accessToken)".utf8)
        let added = value.withUnsafeBufferPointer { text in
            lws_add_http_header_by_token(
                wsi, WSI_TOKEN_HTTP_AUTHORIZATION, text.baseAddress, Int32(text.count), position, start + length)
        }
        guard added == 0 else { return -1 }
        // The request goes out once this returns, and libwebsockets then gives
        // HA its context's timeout_secs (5 s in 4.1.6, lib/core/context.c) to
        // answer (client-http.c, PENDING_TIMEOUT_AWAITING_SERVER_RESPONSE),
        // closing the connection after that as if HA had. A camera may take
        // longer than that (SNAPSHOT_TIMEOUT: up to 10 s), so the fetch's own
        // deadline must decide: the timer fires in the loop's next pass,
        // after the request went, and moves libwebsockets' time past the
        // deadline. (The context's timeout_secs stays: it is also the link's
        // wait for each TCP connect.)
        lws_set_timer_usecs(wsi, 0)
    case LWS_CALLBACK_TIMER:
        let left = fetch.deadline - link.clock.now()
        lws_set_timeout(wsi, PENDING_TIMEOUT_AWAITING_SERVER_RESPONSE, Int32(max(0, left).rounded(.up)) + 1)
    case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
        fetch.status = Int(lws_http_client_http_response(wsi))
        var text = [CChar](repeating: 0, count: 128)
        if lws_hdr_copy(wsi, &text, Int32(text.count), WSI_TOKEN_HTTP_CONTENT_TYPE) > 0 {
            fetch.contentType = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        // A length announced beyond the limit: no need to read it.
        var length = [CChar](repeating: 0, count: 24)
        if lws_hdr_copy(wsi, &length, Int32(length.count), WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0,
            let announced = Int(String(decoding: length.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)),
            announced > fetch.maximumBytes
        {
            fetch.cutOff = true
            link.fetchEnded(fetch, fetch.response)
            return -1
        }
    case LWS_CALLBACK_RECEIVE_CLIENT_HTTP:
        let pre = Int(pb_lws_pre())
        var buffer = [CChar](repeating: 0, count: pre + 16384)
        let read = buffer.withUnsafeMutableBufferPointer { pointer -> Int32 in
            var start: UnsafeMutablePointer<CChar>? = pointer.baseAddress! + pre
            var count = Int32(16384)
            return lws_http_client_read(wsi, &start, &count)
        }
        return read < 0 ? -1 : 0
    case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
        guard fetch.append(UnsafeRawBufferPointer(start: input, count: length)) else {
            link.fetchEnded(fetch, fetch.response)
            return -1
        }
    case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
        link.fetchEnded(fetch, fetch.response)
        return -1  // one request per connection: close it now
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        let detail = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
        link.fetchEnded(fetch, .failed(detail))
    case LWS_CALLBACK_CLOSED_CLIENT_HTTP:
        // After COMPLETED this does nothing; before it, the answer is not whole.
        link.fetchEnded(fetch, .failed("connection closed before the whole answer"))
    default:
        break
    }
    return 0
}
