import AgentSettings
import ArgumentParser
import ControlAPI
import DeviceStore
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// `printbridge history`: the prints the store recorded, newest first.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the prints that ended: file, start, duration, outcome and why (reads the store, no daemon needed).",
        discussion: """
            The store keeps the last \(DeviceStore.historyLimit) prints of each printer. Times are local. \
            The store is in STATE_DIR (see `printbridge run --help`).
            """)

    @Argument(help: "A printer prefix (e.g. x1c_00m09a350100123); all printers when left out.")
    var printer: String?

    @Option(name: .long, help: "How many prints to show.")
    var limit: Int = 20

    @Option(name: .long, help: "text or json (one JSON object per line, as GET /api/printers/{prefix}/history)")
    var format: Format = .text

    enum Format: String, ExpressibleByArgument { case text, json }

    @OptionGroup var configOption: ConfigOption

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let store = try StateDirectory.openStore(try configOption.settings())
        let records: [PrintRecord]
        do { records = try store.printHistory(printer: printer, limit: limit) } catch {
            throw CommandFailure.config("\(error)")
        }
        var output = LineWriter.standardOutput()
        defer { output.flush() }
        for record in records {
            switch format {
            case .json: output.write(APIJSON.print(record))
            case .text: output.write(Self.line(record))
            }
        }
        if records.isEmpty, format == .text {
            StandardStreams.err(printer.map { "no prints recorded for \($0)" } ?? "no prints recorded yet")
        }
    }

    /// "2026-11-23 14:02  X1C  benchy.3mf  complete  2 h 03 min  100 %  layer 300/300"
    static func line(_ record: PrintRecord) -> String {
        var parts = [
            localTime(record.startedAt), record.printerName ?? record.printer, record.file ?? "(no file name)",
            record.outcome.rawValue, StatusPage.duration(record.durationSeconds),
        ]
        if let progress = record.progress { parts.append("\(Int(progress.rounded(.down))) %") }
        if let current = record.currentLayer, let total = record.totalLayers, total > 0 {
            parts.append("layer \(current)/\(total)")
        }
        if let reason = record.reason { parts.append("(\(reason))") }
        return parts.joined(separator: "  ")
    }

    /// "2026-11-23 14:02" in the machine's time zone (TZ).
    static func localTime(_ time: EpochTime) -> String {
        var seconds = time_t(time.wholeSeconds)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return ISO8601.format(time) }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min))"
    }
}
