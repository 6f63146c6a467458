/// How one Home Assistant integration shows a printer: which of its entities
/// play which part, what its status texts mean, and what is its own beyond
/// that (its bus events, its cancel code, how it writes an error, how its
/// error, stage and spool entities read).
///
/// The generic path (session, frame reader, cache, planner) asks a printer's
/// profile and names no integration. Each built-in integration keeps its
/// profile and its facts in its own file under `Printers/Integrations/`,
/// each fact naming the source it was taken from; `PrinterProfile.builtIn`
/// lists them. A printer mapped by hand in the settings file (`printers:`)
/// gets a profile of its own, made from a built-in one.
public struct PrinterProfile: Sendable, CustomStringConvertible {
    /// Short name, used in the settings file and in logs (`bambulab`,
    /// `octoprint`, or a mapped printer's `mapped:<prefix>`).
    public var name: String
    /// The integration as users know it.
    public var title: String
    /// Entity-id suffixes and registry translation keys per field, and the
    /// registry platforms whose entities these are.
    public var entities: EntitySuffixMap
    /// Whether the fields other than the status match by suffix only beside
    /// a status entity of this profile: `_progress` or `_filename` alone
    /// could be anyone's.
    public var siblingsNeedStatus: Bool
    /// Status texts (lower case, spaces kept) and what they mean. A text not
    /// listed carries no information about the print.
    public var statuses: [String: PrintStatus]
    /// Whether a print that goes straight back to idle has ended: complete
    /// when the last progress reading is 100 %, else cancelled (an
    /// integration that polls may miss the finishing state).
    public var idleEndsPrint: Bool
    /// A status entity named after the device alone has no suffix to match:
    /// without the registry it is recognised by its `options` attribute (HA
    /// writes an ENUM sensor's options into its state), which must be
    /// exactly these.
    public var statusOptions: Set<String>?
    /// Whether a failure may be a cancel whose code follows it (the status
    /// and the print error written in no fixed order), so it waits
    /// `CANCEL_WINDOW` before it is told.
    public var failureMayBeCancel: Bool
    /// Whether progress, layers and time left read 0 whenever the printer
    /// is not printing: such a 0 is no reading, and a pause or an end keeps
    /// the last real ones.
    public var zeroWhenNotPrinting: Bool
    /// What is the integration's own beyond names and words, kept in one
    /// shared object: a profile travels in every entity match and printer
    /// snapshot, and is copied with them.
    private let specifics: Specifics

    /// The integration's own bus events about a print, if it fires any.
    public var busEvents: PrinterBusEvents? { specifics.busEvents }
    /// The print error code that means the user cancelled: a failure with
    /// it is a cancel, and its own text is no reason. Nil: none.
    public var cancelCode: Int? { specifics.cancelCode }
    /// A print error code as the integration's printers write it (for the
    /// print history). Default: the decimal number.
    public var errorNotation: @Sendable (Int) -> String { specifics.errorNotation }
    /// What the integration's print-error entity (field `error`) says.
    /// Default: nothing (it has none).
    public var readPrintError: @Sendable (HAState) -> PrintErrorReading { specifics.readPrintError }
    /// The printer's current errors as the integration's errors entity
    /// (field `printerErrors`) lists them; nil: no information. Default: nil.
    public var readPrinterErrors: @Sendable (HAState) -> [PrinterError]? { specifics.readPrinterErrors }
    /// The amounts per spool that an amount entity (field `materialWeight`
    /// or `materialLength`) breaks its total into, from its attributes, by
    /// the spool's name. Default: none.
    public var spoolAmounts: @Sendable ([String: JSONValue]) -> [String: Double] { specifics.spoolAmounts }
    /// The spool feeding the printer as the integration's active-spool
    /// entity (field `activeSpool`) says; nil: none now. Default: nil.
    public var readActiveSpool: @Sendable (HAState) -> Spool? { specifics.readActiveSpool }
    /// Which material readings (fields `materialWeight`, `materialLength`)
    /// of the print under way are an earlier print's by the integration's
    /// own rule, though they did not change before the print began.
    /// Default: none.
    public var materialOfEarlierPrint: @Sendable (PrinterSnapshot) -> [PrinterField] {
        specifics.materialOfEarlierPrint
    }
    /// Why the printer stopped, as its stage (field `stage`) says it, in
    /// the catalog's language; nil when the stage says no such thing.
    /// Default: nil.
    public var stageReason: @Sendable (PrinterSnapshot, Catalog) -> String? { specifics.stageReason }
    /// Whether what is known says why the printer paused well enough to
    /// tell the pause before `REASON_WINDOW` ends. Default: never.
    public var stageExplainsPause: @Sendable (PrinterSnapshot) -> Bool { specifics.stageExplainsPause }
    /// The end of the object id of the button entity that does each action
    /// (`pause_printing`: `button.<printer>_pause_printing`). None: the
    /// integration has no such button.
    public var actionButtons: [PrinterAction: String] { specifics.actionButtons }
    /// The printer's pictures, best first: camera or image entities named
    /// `<domain>.<printer><suffix>` (the registry's entities of the
    /// printer's device come first, in this order). None: no picture.
    public var cameras: [CameraEntity] { specifics.cameras }

    public init(
        name: String, title: String, entities: EntitySuffixMap, siblingsNeedStatus: Bool = true,
        statuses: [String: PrintStatus], idleEndsPrint: Bool = false, statusOptions: Set<String>? = nil,
        failureMayBeCancel: Bool = false, zeroWhenNotPrinting: Bool = false, busEvents: PrinterBusEvents? = nil,
        cancelCode: Int? = nil,
        errorNotation: @escaping @Sendable (Int) -> String = { String($0) },
        readPrintError: @escaping @Sendable (HAState) -> PrintErrorReading = { _ in .noInformation },
        readPrinterErrors: @escaping @Sendable (HAState) -> [PrinterError]? = { _ in nil },
        spoolAmounts: @escaping @Sendable ([String: JSONValue]) -> [String: Double] = { _ in [:] },
        readActiveSpool: @escaping @Sendable (HAState) -> Spool? = { _ in nil },
        materialOfEarlierPrint: @escaping @Sendable (PrinterSnapshot) -> [PrinterField] = { _ in [] },
        stageReason: @escaping @Sendable (PrinterSnapshot, Catalog) -> String? = { _, _ in nil },
        stageExplainsPause: @escaping @Sendable (PrinterSnapshot) -> Bool = { _ in false },
        actionButtons: [PrinterAction: String] = [:], cameras: [CameraEntity] = []
    ) {
        self.name = name
        self.title = title
        self.entities = entities
        self.siblingsNeedStatus = siblingsNeedStatus
        self.statuses = statuses
        self.idleEndsPrint = idleEndsPrint
        self.statusOptions = statusOptions
        self.failureMayBeCancel = failureMayBeCancel
        self.zeroWhenNotPrinting = zeroWhenNotPrinting
        specifics = Specifics(
            busEvents: busEvents, cancelCode: cancelCode, errorNotation: errorNotation, readPrintError: readPrintError,
            readPrinterErrors: readPrinterErrors, spoolAmounts: spoolAmounts, readActiveSpool: readActiveSpool,
            materialOfEarlierPrint: materialOfEarlierPrint, stageReason: stageReason,
            stageExplainsPause: stageExplainsPause, actionButtons: actionButtons, cameras: cameras)
    }

    /// The integration's own facts that no mapped printer changes; immutable,
    /// so one object serves every copy of the profile.
    private final class Specifics: Sendable {
        let busEvents: PrinterBusEvents?
        let cancelCode: Int?
        let errorNotation: @Sendable (Int) -> String
        let readPrintError: @Sendable (HAState) -> PrintErrorReading
        let readPrinterErrors: @Sendable (HAState) -> [PrinterError]?
        let spoolAmounts: @Sendable ([String: JSONValue]) -> [String: Double]
        let readActiveSpool: @Sendable (HAState) -> Spool?
        let materialOfEarlierPrint: @Sendable (PrinterSnapshot) -> [PrinterField]
        let stageReason: @Sendable (PrinterSnapshot, Catalog) -> String?
        let stageExplainsPause: @Sendable (PrinterSnapshot) -> Bool
        let actionButtons: [PrinterAction: String]
        let cameras: [CameraEntity]

        init(
            busEvents: PrinterBusEvents?, cancelCode: Int?, errorNotation: @escaping @Sendable (Int) -> String,
            readPrintError: @escaping @Sendable (HAState) -> PrintErrorReading,
            readPrinterErrors: @escaping @Sendable (HAState) -> [PrinterError]?,
            spoolAmounts: @escaping @Sendable ([String: JSONValue]) -> [String: Double],
            readActiveSpool: @escaping @Sendable (HAState) -> Spool?,
            materialOfEarlierPrint: @escaping @Sendable (PrinterSnapshot) -> [PrinterField],
            stageReason: @escaping @Sendable (PrinterSnapshot, Catalog) -> String?,
            stageExplainsPause: @escaping @Sendable (PrinterSnapshot) -> Bool,
            actionButtons: [PrinterAction: String], cameras: [CameraEntity]
        ) {
            self.busEvents = busEvents
            self.cancelCode = cancelCode
            self.errorNotation = errorNotation
            self.readPrintError = readPrintError
            self.readPrinterErrors = readPrinterErrors
            self.spoolAmounts = spoolAmounts
            self.readActiveSpool = readActiveSpool
            self.materialOfEarlierPrint = materialOfEarlierPrint
            self.stageReason = stageReason
            self.stageExplainsPause = stageExplainsPause
            self.actionButtons = actionButtons
            self.cameras = cameras
        }
    }

    public var description: String { name }

    /// What a raw status means to this profile; nil: no information.
    public func status(raw: String) -> PrintStatus? {
        let text = raw.trimmingWhitespace.lowercased()
        if EntityValue.carriesNoInformation(text) { return nil }
        return statuses[text]
    }

    /// What one of the integration's bus events says, by its kind
    /// (`PrinterBusEvents.kindMember`); nil: nothing about a print.
    public func busEvent(_ kind: String) -> PrinterBusEvent? {
        busEvents?.meanings[kind]
    }

    /// Whether a failed print with this error code was cancelled.
    public func isCancelCode(_ code: Int?) -> Bool {
        guard let code, let cancelCode else { return false }
        return code == cancelCode
    }

    /// The HA event types these profiles' integrations fire, each once, sorted.
    public static func busEventTypes(of profiles: [PrinterProfile]) -> [String] {
        Set(profiles.compactMap(\.busEvents?.eventType)).sorted()
    }

    /// The built-in profile of this name.
    public static func named(_ name: String) -> PrinterProfile? {
        builtIn.first { $0.name == name.lowercased() }
    }
}

extension PrinterProfile: Hashable {
    // One profile per name: comparing names keeps snapshot comparisons cheap.
    public static func == (lhs: PrinterProfile, rhs: PrinterProfile) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// What a print-error entity says.
public enum PrintErrorReading: Hashable, Sendable {
    /// The print has this error code, with the integration's text for it.
    case error(code: Int, text: String?)
    /// No error (the entity cleared).
    case cleared
    /// Nothing usable: unavailable, unknown, or not an error entity.
    case noInformation
}
