import AgentSettings
import ArgumentParser
import ControlAPI
import DeviceStore
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// `printbridge stats`: what the printers did, from the store (no daemon
/// needed); the figures GET /api/statistics gives, as a table or its JSON.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show print statistics: prints, success rate, hours, material, failures (reads the store, no daemon needed).",
        discussion: """
            A print counts in the day, week or month it ended, in the time zone given by --tz (default: this \
            machine's, from TZ or /etc/localtime). The store is in STATE_DIR (see `printbridge run --help`).
            """)

    @Option(name: .long, help: "A printer prefix (e.g. x1c_00m09a350100123); all printers when left out.")
    var printer: String?

    @Option(name: .long, help: "How far back: 30d, 12w, 6m (months of 30 days), 1y, counting today.")
    var since: Since = Since(days: 30)

    @Option(name: .long, help: "day, week or month (default: by the range's length).")
    var bucket: String?

    @Option(name: .long, help: "An IANA time zone (Europe/Berlin); default this machine's.")
    var tz: String?

    @Flag(name: .long, help: "Print GET /api/statistics's JSON instead of the table.")
    var json = false

    @OptionGroup var configOption: ConfigOption

    struct Since: ExpressibleByArgument {
        var days: Int

        init(days: Int) { self.days = days }

        init?(argument: String) {
            guard let unit = argument.last, let count = Int(argument.dropLast()), (1...3660).contains(count) else { return nil }
            switch unit {
            case "d": days = count
            case "w": days = count * 7
            case "m": days = count * 30
            case "y": days = count * 365
            default: return nil
            }
            guard days <= 3660 else { return nil }
        }
    }

    func run() throws {
        let store = try StateDirectory.openStore(try configOption.settings())
        let request: StatisticsRequest
        switch StatisticsRequest.resolve(
            printer: printer, from: nil, to: nil, days: since.days, bucket: bucket, zone: tz ?? StatisticsRequest.machineZone(),
            now: SystemClock().now())
        {
        case .success(let resolved): request = resolved
        case .failure(let problems):
            throw ValidationError(problems.lines.map { "--" + ($0.hasPrefix("days:") ? "since:" + $0.dropFirst(5) : $0) }.joined(separator: "\n"))
        }
        let stats: Statistics
        do {
            let counts = try store.statisticsCounts(
                printer: request.printer, from: request.from, to: request.to, clock: request.clock)
            stats = Statistics(
                counts: counts, printer: request.printer, from: request.from, to: request.to, clock: request.clock,
                bucket: request.bucket)
        } catch {
            throw CommandFailure.config("\(error)")
        }
        var output = LineWriter.standardOutput()
        defer { output.flush() }
        if json {
            output.write(APIJSON.statistics(stats))
        } else {
            for line in Self.table(stats) { output.write(line) }
        }
    }

    /// The figures as a readable table.
    static func table(_ stats: Statistics) -> [String] {
        let clock = stats.clock
        let t = stats.totals
        func day(_ utc: Int64) -> String { clock.localDay(utc).description }
        var lines = [
            "Statistics, \(stats.printer ?? "all printers"), \(day(stats.from)) to \(day(stats.to - 1)) "
                + "(\(clock.zone)), by \(stats.bucket.rawValue)",
            "",
            "Prints          \(t.prints)   completed \(t.completed) · failed \(t.failed) · cancelled \(t.cancelled)"
                + " · abandoned \(t.abandoned)",
            "Success rate    " + (t.successRate.map { fixed($0 * 100, 1) + " %" } ?? "–"),
            "Hours printing  \(fixed(t.printingSeconds / 3600, 1)) h (paused \(fixed(t.pausedSeconds / 3600, 1)) h)",
        ]
        if stats.materials.isEmpty {
            lines.append("Material        none reported")
        }
        for (index, material) in stats.materials.enumerated() {
            var parts = [[material.type ?? "unknown type", material.color].compactMap { $0 }.joined(separator: " ")]
            if let grams = material.grams { parts.append(fixed(grams, 1) + " g") }
            if let meters = material.meters { parts.append(fixed(meters, 1) + " m") }
            parts.append("(\(material.prints) print\(material.prints == 1 ? "" : "s"))")
            lines.append((index == 0 ? "Material        " : "                ") + parts.joined(separator: "  "))
        }
        if let longest = stats.longest {
            lines.append(
                "Longest print   \(longest.printer)  \(longest.file ?? "(no file name)")  "
                    + "\(StatusPage.duration(Int(longest.seconds)))  (\(longest.outcome.rawValue), \(day(Int64(longest.endedAt.seconds))))")
        }
        for (index, failure) in stats.failures.enumerated() {
            lines.append((index == 0 ? "Failures        " : "                ") + "\(failure.count)  \(failure.reason)")
        }
        lines += ["", pad(stats.bucket.rawValue.capitalized, 12) + "  Prints  Completed  Failed  Cancelled   Hours"]
        for period in stats.series {
            let p = period.tally
            lines.append(
                pad(period.start.description, 12) + "  " + left(String(p.prints), 6) + "  " + left(String(p.completed), 9)
                    + "  " + left(String(p.failed), 6) + "  " + left(String(p.cancelled), 9) + "  "
                    + left(fixed(p.printingSeconds / 3600, 1), 6))
        }
        return lines
    }

    static func fixed(_ value: Double, _ places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let rounded = Int((value * scale).rounded())
        let whole = rounded / Int(scale)
        let fraction = String(abs(rounded) % Int(scale))
        return "\(whole).\(String(repeating: "0", count: places - fraction.count))\(fraction)"
    }

    static func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
    static func left(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
}
