/// The printer facts PrintBridge reads, each from its own HA entity.
public enum PrinterField: String, CaseIterable, Hashable, Sendable, Codable {
    case status
    case progress
    case currentLayer
    case totalLayers
    case remainingTime
    /// When the print is expected to end (a timestamp entity: OctoPrint's
    /// "Estimated Finish Time", PrusaLink's "Print finish", Moonraker's
    /// "Print ETA"); the remaining time is derived from it.
    case finishTime
    case nozzleTemp
    case bedTemp
    /// File name, first choice; `subtaskName` and `gcodeFilename` are fallbacks.
    case taskName
    case subtaskName
    case gcodeFilename
    case stage
    case error
    /// The printer's own list of its current errors (read by its
    /// integration, `PrinterProfile.readPrinterErrors`).
    case printerErrors
    /// Material the current print uses, by weight (grams); per spool where
    /// its integration says (`PrinterProfile.spoolAmounts`).
    case materialWeight
    /// Material the current print uses, by length (meters); per spool
    /// where its integration says.
    case materialLength
    /// The spool feeding the printer now, with its material's type and
    /// colour, as its integration reads it (`PrinterProfile.readActiveSpool`).
    case activeSpool
}
