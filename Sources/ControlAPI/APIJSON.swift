import PrintBridgeCore

/// The JSON the API (and `printbridge history` and `notifications` with
/// `--format json`) writes for printers, prints and sent alerts, keys in a
/// fixed order for people reading it.
public enum APIJSON {
    /// The printers as GET /api/printers shows them.
    public static func printers(_ printers: [PrinterSnapshot]) -> String {
        "[" + printers.map { printer in
            JSONText.object([
                ("prefix", JSONText.quoted(printer.prefix)),
                ("name", optional(printer.displayName)),
                ("status", optional(printer.status?.rawValue)),
                ("progress", rounded(printer.progress)),
                ("currentLayer", printer.currentLayer.map(String.init) ?? "null"),
                ("totalLayers", printer.totalLayers.map(String.init) ?? "null"),
                ("remainingSeconds", printer.remainingSeconds.map(String.init) ?? "null"),
                ("nozzleTemp", rounded(printer.nozzleTemp)), ("bedTemp", rounded(printer.bedTemp)),
                ("filename", optional(printer.fileName)),
                ("lastUpdated", optional(printer.lastUpdated.map(ISO8601.format))),
            ])
        }.joined(separator: ",") + "]"
    }

    /// One print of the history.
    public static func print(_ record: PrintRecord) -> String {
        JSONText.object([
            ("printId", JSONText.quoted(record.printID)),
            ("printer", JSONText.quoted(record.printer)),
            ("printerName", optional(record.printerName)),
            ("file", optional(record.file)),
            ("startedAt", JSONText.quoted(ISO8601.format(record.startedAt))),
            ("endedAt", JSONText.quoted(ISO8601.format(record.endedAt))),
            ("durationSeconds", String(record.durationSeconds)),
            ("outcome", JSONText.quoted(record.outcome.rawValue)),
            ("reason", optional(record.reason)),
            ("progress", record.progress.map { JSONText.encode(.number(($0 * 100).rounded() / 100)) } ?? "null"),
            ("currentLayer", record.currentLayer.map(String.init) ?? "null"),
            ("totalLayers", record.totalLayers.map(String.init) ?? "null"),
            ("pausedSeconds", record.pausedSeconds.map { String(Int($0.rounded())) } ?? "null"),
            ("printingSeconds", record.printingSeconds.map { String(Int($0.rounded())) } ?? "null"),
            ("materials", MaterialUse.json(record.materials)),
        ])
    }

    /// One alert of a phone's notification history (GET /api/notifications,
    /// `printbridge notifications --format json`); its picture's link only
    /// while the link lives at `now`.
    public static func notification(_ sent: SentNotification, now: EpochTime) -> String {
        JSONText.object([
            ("id", String(sent.id)),
            ("time", JSONText.quoted(ISO8601.format(sent.createdAt))),
            ("printer", JSONText.quoted(sent.printer)),
            ("kind", JSONText.quoted(sent.event.rawValue)),
            ("title", JSONText.quoted(sent.title)),
            ("body", JSONText.quoted(sent.body)),
            ("reason", optional(sent.reason)),
            ("outcome", JSONText.quoted(sent.outcome.rawValue)),
            ("snapshot", optional(sent.snapshot(at: now))),
        ])
    }

    private static func optional(_ text: String?) -> String { text.map(JSONText.quoted) ?? "null" }

    private static func rounded(_ value: Double?) -> String { value.map { String(Int($0.rounded())) } ?? "null" }
}
