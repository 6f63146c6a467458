/// Reads one HTTP/1.1 request as its bytes arrive, in time linear in them:
/// each byte of the head is looked at once however the request is cut into
/// reads, and the head is parsed once, when it is whole.
///
/// Strict where leniency lets two readers disagree about a request (RFC 9112):
/// lines end with CRLF (a bare LF is a 400 at once, not a wait for a CRLF
/// that never comes), one Content-Length of digits only, no Transfer-Encoding,
/// no folded header lines, no space before a header's colon, one
/// Authorization, a head of at most `maximumHeaderBytes` (431).
struct HTTPRequestParser {
    enum Outcome {
        case incomplete
        case invalid(HTTPResponse)
        case complete(HTTPRequest)
    }

    private struct Head {
        var method: String
        var path: String
        var query: String
        var headers: [String: String]
        var bodyStart: Int
        var length: Int
    }

    let limits: HTTPServer.Limits
    private var bytes: [UInt8] = []
    /// Bytes of the head already scanned for its end.
    private var scanned = 0
    private var head: Head?
    /// The request was handed out: nothing more is read.
    private var finished = false
    /// Bytes looked at while scanning for the head's end (for tests).
    private(set) var work = 0

    init(limits: HTTPServer.Limits) {
        self.limits = limits
    }

    /// Whether the whole head has arrived.
    var hasHead: Bool { head != nil }

    /// Takes the next bytes received.
    mutating func append(_ chunk: UnsafeRawBufferPointer) -> Outcome {
        guard !finished else { return .incomplete }  // one request per connection
        bytes.append(contentsOf: chunk)
        if head == nil {
            switch scanForHeadEnd() {
            case .some(.success(let end)):
                switch Self.parseHead(bytes[0..<end]) {
                case .success(var parsed):
                    parsed.bodyStart = end + 4
                    guard parsed.length <= limits.maximumBodyBytes else {
                        return .invalid(APIError.response(
                            413, "Request body too large (at most \(limits.maximumBodyBytes) bytes)"))
                    }
                    head = parsed
                case .failure(let refusal): return .invalid(refusal.response)
                }
            case .some(.failure(let refusal)): return .invalid(refusal.response)
            case .none: return .incomplete
            }
        }
        guard let head, bytes.count >= head.bodyStart + head.length else { return .incomplete }
        let body = Array(bytes[head.bodyStart..<(head.bodyStart + head.length)])
        bytes = []
        finished = true
        return .complete(HTTPRequest(method: head.method, path: head.path, query: head.query, headers: head.headers, body: body))
    }

    /// Convenience for a whole request at once.
    static func parse(_ bytes: [UInt8], limits: HTTPServer.Limits) -> Outcome {
        var parser = HTTPRequestParser(limits: limits)
        return bytes.withUnsafeBytes { parser.append($0) }
    }

    /// Scans the new bytes for CRLFCRLF: the head's end offset, nil while it
    /// has not come, or a refusal (a bare LF, a head over the limit).
    private mutating func scanForHeadEnd() -> Result<Int, HTTPResponseError>? {
        let cr: UInt8 = 0x0D
        let lf: UInt8 = 0x0A
        let limit = min(bytes.count, limits.maximumHeaderBytes + 4)
        var index = scanned
        while index < limit {
            work += 1
            if bytes[index] == lf {
                guard index > 0, bytes[index - 1] == cr else {
                    return .failure(HTTPResponseError(APIError.response(400, "Header lines must end with CRLF")))
                }
                if index >= 3, bytes[index - 2] == lf, bytes[index - 3] == cr {
                    scanned = index + 1
                    return .success(index - 3)
                }
            }
            index += 1
        }
        scanned = index
        if bytes.count > limits.maximumHeaderBytes + 3 {
            return .failure(HTTPResponseError(APIError.response(
                431, "Request headers too large (at most \(limits.maximumHeaderBytes) bytes)")))
        }
        return nil
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) -> Result<Head, HTTPResponseError> {
        func refuse(_ reason: String) -> Result<Head, HTTPResponseError> {
            .failure(HTTPResponseError(APIError.response(400, reason)))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, requestLine[0].allSatisfy(isTokenCharacter),
            requestLine[1].first == "/", requestLine[2] == "HTTP/1.1" || requestLine[2] == "HTTP/1.0"
        else { return refuse("Malformed request line") }
        var headers: [String: String] = [:]
        for line in lines {
            if line.first == " " || line.first == "\t" { return refuse("Folded header lines are not accepted") }
            guard let colon = line.firstIndex(of: ":") else { return refuse("Malformed header") }
            let name = line[..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else { return refuse("Malformed header name") }
            let key = name.lowercased()
            let value = String(line[line.index(after: colon)...].trimmingHeaderWhitespace)
            if headers[key] != nil, key == "content-length" || key == "authorization" || key == "host" {
                return refuse("More than one \(name) header")
            }
            headers[key] = headers[key].map { $0 + ", " + value } ?? value
        }
        if headers["transfer-encoding"] != nil {
            return refuse("Chunked bodies are not accepted; send Content-Length")
        }
        var length = 0
        if let text = headers["content-length"] {
            guard !text.isEmpty, text.count <= 9, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text)
            else { return refuse("Invalid Content-Length") }
            length = value
        }
        var path = String(requestLine[1]), query = ""
        if let mark = path.firstIndex(of: "?") {
            query = String(path[path.index(after: mark)...])
            path = String(path[..<mark])
        }
        return .success(Head(
            method: String(requestLine[0]), path: path, query: query, headers: headers, bodyStart: 0, length: length))
    }

    /// RFC 9110 token characters (method and header names).
    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        switch ascii {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(ascii)
        }
    }
}

/// A refusal carried through `Result`.
struct HTTPResponseError: Error {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (optional whitespace around a header value).
    fileprivate var trimmingHeaderWhitespace: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
