import DeviceStore
import PrintBridgeCore

/// A route's query as its handler reads it: the parameters it knows, and
/// each problem named by its parameter (the seed's `details`): a name it
/// does not know or one given twice, a value that does not fit. The lists'
/// routes (`/api/notifications`, `/api/history`) and `/api/statistics`
/// read theirs here, so a bad parameter reads the same everywhere.
struct QueryParameters {
    private let query: QueryString
    private(set) var problems: [String: [String]] = [:]

    /// Throws for a query that is not valid percent-encoded text; a name
    /// not in `known`, or one given twice, is a problem.
    init(_ request: HTTPRequest, known: [String]) throws {
        guard let query = QueryString(request.query) else {
            throw ControlAPI.Invalid(details: ["query": ["is not a valid percent-encoded query string"]])
        }
        self.query = query
        let names = Set(known)
        for name in query.names where !names.contains(name) {
            problem(name, "is not a parameter (\(known.joined(separator: ", ")))")
        }
        for name in query.repeated.sorted() where names.contains(name) { problem(name, "is given more than once") }
    }

    /// The value as given, unchecked.
    subscript(_ name: String) -> String? { query[name] }

    mutating func problem(_ name: String, _ text: String) { problems[name, default: []].append(text) }

    /// Throws the problems found, if any.
    func check() throws {
        guard problems.isEmpty else { throw ControlAPI.Invalid(details: problems) }
    }

    /// A non-empty value of at most 512 bytes.
    mutating func text(_ name: String) -> String? {
        guard let value = query[name] else { return nil }
        guard !value.isEmpty, value.utf8.count <= 512 else {
            problem(name, "must be a non-empty string of at most 512 bytes")
            return nil
        }
        return value
    }

    /// `limit`: a page's size, 1 to `maximum`; `size` when not given.
    mutating func limit(default size: Int, maximum: Int) -> Int {
        guard let value = query["limit"] else { return size }
        guard let number = Int(value), (1...maximum).contains(number) else {
            problem("limit", "must be a whole number from 1 to \(maximum)")
            return size
        }
        return number
    }

    /// An ISO 8601 time.
    mutating func time(_ name: String) -> EpochTime? {
        guard let value = text(name) else { return nil }
        guard let time = ISO8601.parse(value) else {
            problem(name, "must be an ISO 8601 time such as 2026-11-20T09:00:00Z")
            return nil
        }
        return time
    }

    /// `before`: the `next` of an earlier page, or an ISO 8601 time (what
    /// is strictly older).
    mutating func cursor() -> DeviceStore.PageCursor? {
        guard let value = text("before") else { return nil }
        if let time = ISO8601.parse(value) { return DeviceStore.PageCursor(time: time) }
        if let cursor = DeviceStore.PageCursor(value) { return cursor }
        problem("before", "must be the `next` of an earlier page or an ISO 8601 time")
        return nil
    }
}
