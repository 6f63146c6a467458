/// Reads one HTTP/1.1 request from the bytes received so far.
enum HTTPRequestParser {
    enum Outcome {
        case incomplete
        case invalid(HTTPResponse)
        case complete(HTTPRequest)
    }

    static func parse(_ bytes: [UInt8], limits: HTTPServer.Limits) -> Outcome {
        guard let headerEnd = find([0x0D, 0x0A, 0x0D, 0x0A], in: bytes) else {
            return bytes.count > limits.maximumHeaderBytes ? .invalid(APIError.response(413, "Request headers too large")) : .incomplete
        }
        let head = String(decoding: bytes[0..<headerEnd], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            return .invalid(APIError.response(400, "Malformed request line"))
        }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return .invalid(APIError.response(400, "Malformed header")) }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers[name] = String(value)
        }
        if headers["transfer-encoding"] != nil {
            return .invalid(APIError.response(400, "Chunked bodies are not accepted; send Content-Length"))
        }
        let length: Int
        if let text = headers["content-length"] {
            guard let value = Int(text), value >= 0 else { return .invalid(APIError.response(400, "Invalid Content-Length")) }
            length = value
        } else {
            length = 0
        }
        guard length <= limits.maximumBodyBytes else {
            return .invalid(APIError.response(413, "Request body too large (at most \(limits.maximumBodyBytes) bytes)"))
        }
        let bodyStart = headerEnd + 4
        guard bytes.count >= bodyStart + length else { return .incomplete }
        var path = String(requestLine[1])
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        return .complete(HTTPRequest(
            method: String(requestLine[0]), path: path, headers: headers, body: Array(bytes[bodyStart..<(bodyStart + length)])))
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for index in 0...(bytes.count - needle.count) where bytes[index] == needle[0] {
            if Array(bytes[index..<(index + needle.count)]) == needle { return index }
        }
        return nil
    }
}
