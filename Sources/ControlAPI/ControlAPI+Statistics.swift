import DeviceStore
import PrintBridgeCore

/// GET /api/statistics: what the printers did over a time, for the app's
/// dashboard (`StatisticsRequest` says the parameters and defaults).
extension ControlAPI {
    func statistics(_ request: HTTPRequest) throws -> HTTPResponse {
        var query = try QueryParameters(request, known: ["printer", "from", "to", "days", "bucket", "tz"])
        var days: Int?
        if let text = query["days"] {
            days = Int(text)
            if days == nil { query.problem("days", "must be a whole number of days from 1 to 3660") }
        }
        try query.check()
        let asked = StatisticsRequest.resolve(
            printer: query["printer"], from: query["from"], to: query["to"], days: days, bucket: query["bucket"],
            zone: query["tz"], now: clock.now())
        let resolved: StatisticsRequest
        switch asked {
        case .success(let request): resolved = request
        case .failure(let problems): throw Invalid(details: problems.byParameter)
        }
        if let printer = resolved.printer, try !store.hasStatistics(printer: printer),
            !printers().contains(where: { $0.prefix == printer })
        {
            return APIError.response(404, "Printer not found")
        }
        let counts = try store.statisticsCounts(
            printer: resolved.printer, from: resolved.from, to: resolved.to, clock: resolved.clock)
        let stats = Statistics(
            counts: counts, printer: resolved.printer, from: resolved.from, to: resolved.to, clock: resolved.clock,
            bucket: resolved.bucket)
        return HTTPResponse(status: 200, body: APIJSON.statistics(stats))
    }
}

extension ControlAPI {
    /// Each printer's last 30 days for the status page, in this machine's
    /// time zone (an add-on's is Home Assistant's); none when the store fails.
    func statusPageStatistics(now: EpochTime) -> [String: Statistics] {
        guard case .success(let range) = StatisticsRequest.resolve(
            printer: nil, from: nil, to: nil, days: StatusPage.statisticsDays, bucket: "day",
            zone: StatisticsRequest.machineZone(), now: now)
        else { return [:] }
        var result: [String: Statistics] = [:]
        do {
            for printer in try store.statisticsPrinters() {
                let counts = try store.statisticsCounts(printer: printer, from: range.from, to: range.to, clock: range.clock)
                result[printer] = Statistics(
                    counts: counts, printer: printer, from: range.from, to: range.to, clock: range.clock, bucket: .day)
            }
        } catch {
            storeFailed("GET / statistics: \(error)")
            return [:]
        }
        return result
    }
}
