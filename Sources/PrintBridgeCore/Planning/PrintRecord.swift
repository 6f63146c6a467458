/// One print that ended, as the history keeps it: which printer, which
/// file, when it began and ended, how it ended and why, and how far it got.
///
/// Made by the planner on the same ending transition that sends "Print
/// Complete!" or ends the Live Activity, and saved with that change's printer
/// memory in one transaction, so a crash neither loses nor repeats a record.
public struct PrintRecord: Hashable, Sendable {
    public enum Outcome: String, CaseIterable, Hashable, Sendable {
        case complete, failed, cancelled
        /// The print went back to idle or preparing without finishing.
        case abandoned
    }

    /// The print's id ("<prefix>-<epoch seconds its status became running>"):
    /// unique per print, so saving a record twice keeps one.
    public var printID: String
    public var printer: String
    /// The printer's name when the print ended (settings, else HA's device name).
    public var printerName: String?
    public var file: String?
    public var startedAt: EpochTime
    public var endedAt: EpochTime
    public var outcome: Outcome
    /// Why it ended other than complete, where known: the print error code
    /// in the printer's own notation (`PrinterProfile.errorNotation`:
    /// "print error 0300-8003"), or what PrintBridge saw.
    public var reason: String?
    /// The last readings: progress 0–100, layers.
    public var progress: Double?
    public var currentLayer: Int?
    public var totalLayers: Int?
    /// Seconds the print was paused (by HA's clock), and printing: from
    /// start to end less the pauses. Nil for prints recorded before
    /// PrintBridge counted pauses.
    public var pausedSeconds: Double?
    public var printingSeconds: Double? { pausedSeconds.map { max(0, endedAt.seconds - startedAt.seconds - $0) } }
    /// What the printer reported of the material used; empty: nothing reported.
    public var materials: [MaterialUse]

    public init(
        printID: String, printer: String, printerName: String? = nil, file: String? = nil, startedAt: EpochTime,
        endedAt: EpochTime, outcome: Outcome, reason: String? = nil, progress: Double? = nil,
        currentLayer: Int? = nil, totalLayers: Int? = nil, pausedSeconds: Double? = nil, materials: [MaterialUse] = []
    ) {
        self.printID = printID
        self.printer = printer
        self.printerName = printerName
        self.file = file
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.outcome = outcome
        self.reason = reason
        self.progress = progress
        self.currentLayer = currentLayer
        self.totalLayers = totalLayers
        self.pausedSeconds = pausedSeconds
        self.materials = materials
    }

    /// Whole seconds from start to end (never negative).
    public var durationSeconds: Int { max(0, Int((endedAt.seconds - startedAt.seconds).rounded())) }

    /// When the print with this id began: the seconds at its end.
    public static func startTime(ofPrintID printID: String) -> EpochTime? {
        guard let dash = printID.lastIndex(of: "-"), let seconds = Int(printID[printID.index(after: dash)...]) else {
            return nil
        }
        return EpochTime(seconds: Double(seconds))
    }
}
