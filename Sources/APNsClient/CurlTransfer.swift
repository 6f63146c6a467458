import CCurl
import PrintBridgeCore

/// One request in flight: what libcurl's callbacks fill in, owned by the loop thread.
final class Transfer {
    let continuation: CheckedContinuation<HTTP2Response, any Error>
    var headerList: UnsafeMutablePointer<curl_slist>?
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    /// libcurl's CURLOPT_ERRORBUFFER: memory of our own that libcurl may
    /// write until the transfer is removed (a Swift array's storage may move).
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// When it was handed to libcurl (monotonic seconds).
    let started: Double
    private var done = false

    init(continuation: CheckedContinuation<HTTP2Response, any Error>, started: Double) {
        self.continuation = continuation
        self.started = started
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    var errorText: String { String(cString: errorBuffer) }

    /// "name: value\r\n" → headers[name] = value. A new status line (a retried
    /// or informational response) starts over.
    func addHeaderLine(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            headers.removeAll()
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].lowercased()
        // "\r\n" is one Character in Swift: compare by whitespace, not by code unit.
        headers[name] = String(text[text.index(after: colon)...].trimmingWhitespace)
    }

    func finish(_ result: Result<HTTP2Response, any Error>) {
        guard !done else { return }
        done = true
        continuation.resume(with: result)
    }
}
