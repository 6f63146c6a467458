import PrintBridgeCore

extension APIJSON {
    /// GET /api/statistics's answer (and `printbridge stats --json`): times
    /// in the request's zone with its offset, hours to two decimals, grams
    /// and meters null where no print in them reported any.
    public static func statistics(_ stats: Statistics) -> String {
        let clock = stats.clock
        func hours(_ seconds: Double) -> String { number(seconds / 3600) }
        func amount(_ value: Double) -> String { value > 0 ? number(value) : "null" }
        func tally(_ t: Statistics.Tally) -> [(String, String)] {
            [
                ("prints", String(t.prints)), ("completed", String(t.completed)), ("failed", String(t.failed)),
                ("cancelled", String(t.cancelled)), ("abandoned", String(t.abandoned)),
                ("successRate", t.successRate.map { number($0, places: 4) } ?? "null"),
                ("hoursPrinting", hours(t.printingSeconds)), ("hoursPaused", hours(t.pausedSeconds)),
                ("grams", amount(t.grams)), ("meters", amount(t.meters)),
            ]
        }
        let longest = stats.longest.map { print in
            JSONText.object([
                ("printId", JSONText.quoted(print.printID)), ("printer", JSONText.quoted(print.printer)),
                ("file", print.file.map(JSONText.quoted) ?? "null"),
                ("startedAt", JSONText.quoted(clock.format(Int64(print.startedAt.seconds)))),
                ("endedAt", JSONText.quoted(clock.format(Int64(print.endedAt.seconds)))),
                ("hours", hours(print.seconds)), ("outcome", JSONText.quoted(print.outcome.rawValue)),
            ])
        } ?? "null"
        let materials = stats.materials.map { material in
            JSONText.object([
                ("type", material.type.map(JSONText.quoted) ?? "null"),
                ("color", material.color.map(JSONText.quoted) ?? "null"),
                ("grams", material.grams.map { number($0) } ?? "null"),
                ("meters", material.meters.map { number($0) } ?? "null"), ("prints", String(material.prints)),
            ])
        }
        let failures = stats.failures.map {
            JSONText.object([("reason", JSONText.quoted($0.reason)), ("count", String($0.count))])
        }
        let series = stats.series.map { period in
            JSONText.object(
                [("start", JSONText.quoted(clock.format(period.startsAt))), ("end", JSONText.quoted(clock.format(period.endsAt)))]
                    + tally(period.tally))
        }
        return JSONText.object([
            ("success", "true"), ("printer", stats.printer.map(JSONText.quoted) ?? "null"),
            ("from", JSONText.quoted(clock.format(stats.from))), ("to", JSONText.quoted(clock.format(stats.to))),
            ("timeZone", JSONText.quoted(clock.zone)), ("bucket", JSONText.quoted(stats.bucket.rawValue)),
            ("totals", JSONText.object(tally(stats.totals))),
            ("material", "[" + materials.joined(separator: ",") + "]"),
            ("longestPrint", longest),
            ("failuresByReason", "[" + failures.joined(separator: ",") + "]"),
            ("series", "[" + series.joined(separator: ",") + "]"),
        ])
    }

    /// A number rounded to `places` decimals, without a trailing ".0".
    static func number(_ value: Double, places: Int = 2) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return JSONText.encode(.number((value * scale).rounded() / scale))
    }
}
