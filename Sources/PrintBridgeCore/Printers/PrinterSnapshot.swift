import PrinterActivityContent

/// Everything known about one printer: the last *known* value of each field.
/// A field is nil until HA has reported a usable value for it.
public struct PrinterSnapshot: Hashable, Sendable {
    public var prefix: String
    /// The integration the printer's status entity comes through; its
    /// vocabulary normalises `rawStatus`.
    public var profile: PrinterProfile = .default { didSet { deriveStatus() } }
    /// Normalised status, derived from `rawStatus` and the error code.
    public private(set) var status: PrintStatus?
    public var rawStatus: String? { didSet { deriveStatus() } }
    public var errorCode: Int? { didSet { deriveStatus() } }
    public var progress: Double?
    public var currentLayer: Int?
    public var totalLayers: Int?
    public var remainingSeconds: Int?
    /// When the print is expected to end, where the integration says that
    /// rather than how long is left; `remainingSeconds` follows from it.
    public var finishAt: EpochTime?
    public var nozzleTemp: Double?
    public var bedTemp: Double?
    public var taskName: String?
    public var subtaskName: String?
    public var gcodeFilename: String?
    public var stage: String?
    /// The print error's text (in Home Assistant's language) while
    /// `errorCode` is set.
    public var errorText: String?
    /// The printer's current errors; nil until HA has said.
    public var printerErrors: [PrinterError]?
    /// What the printer reports of the material the print uses.
    public var material = MaterialReadings()
    /// The status entity's friendly_name ("X1C Print status", "X1C Druckstatus").
    public var statusEntityName: String?
    /// The other entities' friendly names, by field: they share the device
    /// part with the status entity's, whatever HA's language.
    public var siblingEntityNames: [PrinterField: String] = [:]
    public var lastUpdated: EpochTime?
    /// When each field last changed value, by HA's `last_changed` of its
    /// entity (else when PrintBridge saw it).
    public var changedAt: [PrinterField: EpochTime] = [:]
    /// Since when the status entity has carried no information
    /// (`unavailable`, `unknown`, `offline`…: the printer or its integration
    /// went quiet, by HA's `last_changed`); nil while it reports a status.
    /// What is known of the printer stays as it was meanwhile.
    public var silentSince: EpochTime?

    public init(prefix: String) {
        self.prefix = prefix
    }

    /// Whether a usable value of `field` is known.
    public func hasValue(for field: PrinterField) -> Bool {
        switch field {
        case .status: return status != nil
        case .progress: return progress != nil
        case .currentLayer: return currentLayer != nil
        case .totalLayers: return totalLayers != nil
        case .remainingTime: return remainingSeconds != nil
        case .finishTime: return finishAt != nil
        case .nozzleTemp: return nozzleTemp != nil
        case .bedTemp: return bedTemp != nil
        case .taskName: return taskName != nil
        case .subtaskName: return subtaskName != nil
        case .gcodeFilename: return gcodeFilename != nil
        case .stage: return stage != nil
        case .error: return errorCode != nil
        case .printerErrors: return printerErrors != nil
        case .materialWeight: return material.grams != nil
        case .materialLength: return material.meters != nil
        case .activeSpool: return material.activeSpool != nil
        }
    }

    /// When the current print began: its status left idle or an end for
    /// preparing or printing (HA's `last_changed`, else when PrintBridge saw it).
    public var printBeganAt: EpochTime?

    /// This snapshot with only the current print's readings: progress,
    /// current layer and remaining time that last changed before the print
    /// began belong to the previous print (an integration may write the new
    /// ones a report after the status), so they read as nothing yet.
    public func currentPrint() -> PrinterSnapshot {
        guard let began = printBeganAt else { return self }
        var copy = self
        func stale(_ field: PrinterField) -> Bool { (changedAt[field] ?? began) < began }
        if stale(.progress) { copy.progress = 0 }
        if stale(.currentLayer) { copy.currentLayer = 0 }
        if stale(.remainingTime) || (finishAt != nil && stale(.finishTime)) { copy.remainingSeconds = nil }
        // Material used grows through a print from its 0 (Moonraker's), so a
        // reading from before the print began is the last print's.
        if profile.zeroWhenNotPrinting {
            for field in [PrinterField.materialWeight, .materialLength] where stale(field) {
                copy.material.forget(field)
            }
        }
        // The integration may know more of which readings are an earlier print's.
        for field in profile.materialOfEarlierPrint(self) { copy.material.forget(field) }
        return copy
    }

    /// The printer's name as HA shows it: the device part of its entities'
    /// friendly names. HA names an entity "<device> <entity name>", the
    /// entity name in HA's language: an English "Print status" is cut off;
    /// otherwise the words the status entity's name shares with all its
    /// siblings' are the device's ("X1C Druckstatus", "X1C Druckfortschritt").
    public var displayName: String? {
        guard let status = statusEntityName?.trimmingWhitespace, !status.isEmpty else { return nil }
        if status.lowercased().hasSuffix(" print status") {
            return String(status.dropLast(" print status".count).trimmingWhitespace)
        }
        let words = status.split(separator: " ")
        var shared = words.count - 1
        for sibling in siblingEntityNames.values {
            let other = sibling.split(separator: " ")
            var n = 0
            while n < min(shared, other.count), words[n] == other[n] { n += 1 }
            shared = n
        }
        if !siblingEntityNames.isEmpty, shared > 0 { return words.prefix(shared).joined(separator: " ") }
        if status.lowercased().hasSuffix(" status") { return String(status.dropLast(" status".count).trimmingWhitespace) }
        return String(status)
    }

    /// The file being printed: task name, else subtask name, else G-code file name.
    public var fileName: String? { taskName ?? subtaskName ?? gcodeFilename }

    private mutating func deriveStatus() {
        guard let rawStatus, var derived = profile.status(raw: rawStatus) else {
            // No usable raw status (yet): keep what we knew.
            return
        }
        if derived == .failed, profile.isCancelCode(errorCode) {
            derived = .cancelled
        }
        status = derived
    }

    /// The Live Activity content for this printer as the app shows it.
    /// Unknown numbers are 0 (the app's types are not optional).
    public func contentState(status: PrintStatus? = nil) -> PrinterActivityAttributes.ContentState {
        let status = status ?? self.status ?? .running
        var progress = Int((self.progress ?? 0).rounded(.down))
        var remaining = remainingSeconds ?? 0
        var current = currentLayer ?? 0
        let total = totalLayers ?? 0
        if status.isTerminal {
            // Nothing remains of an ended print.
            remaining = 0
        }
        if status == .complete {
            // The last progress/layer readings often lag the finish by a moment.
            progress = 100
            current = max(current, total)
        }
        return PrinterActivityAttributes.ContentState(
            progress: min(100, max(0, progress)),
            currentLayer: current,
            totalLayers: total,
            remainingSeconds: remaining,
            status: status.rawValue,
            nozzleTemp: Int((nozzleTemp ?? 0).rounded()),
            bedTemp: Int((bedTemp ?? 0).rounded())
        )
    }
}
