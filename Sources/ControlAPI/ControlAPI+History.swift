import DeviceStore
import PrintBridgeCore

/// The print history for the app: `GET /api/history`, every printer's
/// prints page by page, filtered by printer, outcome and time; and the
/// seed's `GET /api/printers/{prefix}/history`, one printer's last prints,
/// a view of the same query.
extension ControlAPI {
    /// `printer`, `outcome` (one or more of complete, failed, cancelled,
    /// abandoned, comma-separated), `from` and `to` (ISO 8601 times: prints
    /// that ended in [from, to), as `/api/statistics` counts them), `before`
    /// (a `next` cursor of an earlier page, or an ISO 8601 time) and
    /// `limit`. Newest end first; 400 naming each bad parameter.
    func historyPage(_ request: HTTPRequest) throws -> HTTPResponse {
        var query = try QueryParameters(request, known: ["printer", "outcome", "from", "to", "before", "limit"])
        var selection = DeviceStore.HistoryQuery(printer: query.text("printer"))
        if let text = query.text("outcome") {
            let names = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace }
            let outcomes = names.compactMap { PrintRecord.Outcome(rawValue: String($0)) }
            if outcomes.count == names.count {
                selection.outcomes = Set(outcomes)
            } else {
                let all = PrintRecord.Outcome.allCases.map(\.rawValue).joined(separator: ", ")
                query.problem("outcome", "must be one or more of \(all), separated by commas")
            }
        }
        selection.from = query.time("from")
        selection.to = query.time("to")
        if let from = selection.from, let to = selection.to, from >= to { query.problem("from", "must be before `to`") }
        selection.before = query.cursor()
        let limit = query.limit(default: Self.notificationPageSize, maximum: Self.notificationPageLimit)
        try query.check()
        let page = try store.printHistory(selection, limit: limit)
        return HTTPResponse(status: 200, body: JSONText.object([
            ("success", "true"),
            ("prints", "[" + page.prints.map(APIJSON.print).joined(separator: ",") + "]"),
            ("next", page.next.map { JSONText.quoted($0.description) } ?? "null"),
        ]))
    }

    /// A printer's last prints (the newest `DeviceStore.historyLimit`, all
    /// the store keeps), newest first, as the seed app may ask; 404 for a
    /// printer neither watched now nor in the history.
    func history(_ prefix: String) throws -> HTTPResponse {
        let records = try store.printHistory(.init(printer: prefix), limit: DeviceStore.historyLimit).prints
        guard !records.isEmpty || printers().contains(where: { $0.prefix == prefix }) else {
            return APIError.response(404, "Printer not found")
        }
        return HTTPResponse(status: 200, body: JSONText.object([
            ("success", "true"), ("printer", JSONText.quoted(prefix)),
            ("prints", "[" + records.map(APIJSON.print).joined(separator: ",") + "]"),
        ]))
    }
}
