/// Which new status the planner holds back before acting on it, and for how
/// long: one row a rule, the first row that fits wins; a move no row fits
/// is acted on at once, and so is one whose window is set to 0.
///
/// Holding lets what an integration writes in one update pass in no fixed
/// order (a status, its print error, its stage) settle into one verdict: a
/// start that may vanish again, a failure that may be a cancel, a pause
/// whose reason follows, an end shown as idle whose progress follows, a
/// print that may come back from idle. docs/BEHAVIOUR.md says why each.
struct HoldRule: Hashable, Sendable {
    /// The last status acted on (any of these; a list, not a set: the table
    /// is read a handful of times a print and needs no hashing).
    var from: [PrintStatus]
    /// The new status (any of these).
    var to: [PrintStatus]
    /// What must be true for the row to apply.
    var requires: Circumstances = []
    /// How long the new status is held.
    var window: Window
    /// Whether the print's file is held with it: a print under way that
    /// comes back with the same file was a flicker, not a new print.
    var keepsFile = false

    /// The rules, in order.
    static let table: [HoldRule] = [
        // A start settles: it may vanish again, and the new file and progress follow.
        HoldRule(from: [.idle, .complete, .failed, .cancelled, .preparing], to: [.running], window: .startSettle),
        // A failure may be a cancel whose code follows; announced, only the next report's.
        HoldRule(
            from: [.running, .paused, .preparing], to: [.failed],
            requires: [.failureMayBeCancel, .failureAnnounced], window: .announcedFailure),
        HoldRule(from: [.running, .paused, .preparing], to: [.failed], requires: .failureMayBeCancel, window: .cancel),
        // An end shown as idle: the progress of the same pass says how it ended.
        HoldRule(from: [.running, .paused], to: [.idle], requires: .idleEndsPrint, window: .reason),
        // A pause waits for its reason (told earlier once it is in).
        HoldRule(from: [.running, .preparing], to: [.paused], window: .reason),
        // A print under way gone idle or preparing may come back.
        HoldRule(from: [.running, .paused], to: [.idle, .preparing], window: .flicker, keepsFile: true),
    ]

    /// The rule that holds the move from `last` to `status`, if any.
    static func rule(from last: PrintStatus, to status: PrintStatus, given circumstances: Circumstances) -> HoldRule? {
        table.first { $0.applies(from: last, to: status, given: circumstances) }
    }

    func applies(from last: PrintStatus, to status: PrintStatus, given circumstances: Circumstances) -> Bool {
        from.contains(last) && to.contains(status) && circumstances.isSuperset(of: requires)
    }

    /// What is true of the printer and the moment, as far as the rules ask.
    struct Circumstances: OptionSet, Hashable, Sendable {
        let rawValue: UInt8

        /// The printer's integration may report a cancel as a failure whose
        /// code follows (`PrinterProfile.failureMayBeCancel`).
        static let failureMayBeCancel = Circumstances(rawValue: 1 << 0)
        /// The integration announced the failure before the status said it
        /// (`PrinterBusEvent.failed`).
        static let failureAnnounced = Circumstances(rawValue: 1 << 1)
        /// The integration may show a print's end as idle
        /// (`PrinterProfile.idleEndsPrint`).
        static let idleEndsPrint = Circumstances(rawValue: 1 << 2)

        init(rawValue: UInt8) { self.rawValue = rawValue }

        init(profile: PrinterProfile, failureAnnounced: Bool) {
            self = []
            if profile.failureMayBeCancel { insert(.failureMayBeCancel) }
            if failureAnnounced { insert(.failureAnnounced) }
            if profile.idleEndsPrint { insert(.idleEndsPrint) }
        }
    }

    /// The planner's windows (`PlannerConfiguration`).
    enum Window: Hashable, Sendable, CaseIterable {
        /// `START_SETTLE`.
        case startSettle
        /// `CANCEL_WINDOW`.
        case cancel
        /// A failure the integration announced: `CANCEL_WINDOW`, at most
        /// `announcedFailureWait`.
        case announcedFailure
        /// `REASON_WINDOW`.
        case reason
        /// `FLICKER_WINDOW`.
        case flicker

        /// The window's length in seconds.
        func seconds(in configuration: PlannerConfiguration) -> Double {
            switch self {
            case .startSettle: return configuration.startSettle
            case .cancel: return configuration.cancelWindow
            case .announcedFailure: return min(configuration.cancelWindow, configuration.announcedFailureWait)
            case .reason: return configuration.reasonWindow
            case .flicker: return configuration.flickerWindow
            }
        }
    }
}
