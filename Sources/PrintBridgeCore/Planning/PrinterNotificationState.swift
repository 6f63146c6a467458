/// What the planner remembers about one printer between pushes. This is the
/// part of the agent's memory that must survive a restart (the device store
/// persists it) so that no alert is sent twice and none is missed.
public struct PrinterNotificationState: Hashable, Sendable, Codable {
    /// The last known status the planner acted on (alerted or took as baseline).
    public var lastStatus: PrintStatus?
    /// Identifies the current print: "<prefix>-<epoch seconds it was first seen running>".
    public var printID: String?
    /// Milestones already alerted (or already behind the print when first seen) for this print.
    public var milestonesSent: Set<Int>
    /// The last progress reading of this print that milestones are measured from.
    public var milestoneReference: Double?
    /// When the last Live Activity update went out, for the throttle.
    public var lastLiveActivityPush: EpochTime?
    /// When a status change's own update last went out: a change within the
    /// settle time after it is the rest of that report and follows at once
    /// (not kept by the store: after a restart the throttle alone applies).
    public var statusUpdateAt: EpochTime?
    /// When the next routine Live Activity update is due, if one is waiting.
    public var liveActivityDue: EpochTime?
    /// A verdict held back (see `Held`); nil: none. Persisted, so a status
    /// seen just before a crash is acted on after it.
    public var held: Held?
    /// The printer errors already told (or there when PrintBridge first saw the
    /// printer, or told as a pause's or failure's reason), by code; nil
    /// until the printer's errors were first seen.
    public var toldErrors: Set<String>?
    /// Told errors that went away, and when: one back within the flicker
    /// window is the same error (an HA restart shows none for a moment).
    public var clearedErrors: [String: EpochTime] = [:]
    /// When new printer errors are told, unless a pause or failure takes them first.
    public var errorsDue: EpochTime?
    /// A print finished with the bed this warm, at this time: "Ready to
    /// Remove" is due when it has cooled.
    public var bedCoolingSince: EpochTime?
    /// When the printer's integration said the print failed (a bus event,
    /// `PrinterBusEvent.failed`) before its status did: the failed status that
    /// follows is told as soon as a cancel code in the next report has had
    /// its chance, not after the whole cancel window.
    public var failureAnnounced: EpochTime?
    /// The devices the current pause was told to (ids): when the print
    /// resumes, their "Print Paused" is replaced by a quiet note.
    public var pauseToldTo: Set<String> = []
    /// The printer of a print under way went quiet (see `Silence`).
    public var silence: Silence?
    /// The print's pauses, for its record: the seconds of those that ended
    /// (nil: unknown, a resume the agent did not see), and since when it is
    /// paused now (HA's `last_changed`).
    public var pausedSeconds: Double? = 0
    public var pausedSince: EpochTime?
    /// The spools seen feeding the print (by their names; "" when the
    /// integration does not say which), for its record's material.
    public var spoolsSeen: [String: Material] = [:]

    /// A print's printer that stopped reporting: since when, when the
    /// "Printer Offline" alert is due (nil once told, or when the alert is
    /// off), and the devices it was told to.
    public struct Silence: Hashable, Sendable, Codable {
        public var since: EpochTime
        public var due: EpochTime?
        public var toldTo: Set<String>?

        public init(since: EpochTime, due: EpochTime?, toldTo: Set<String>? = nil) {
            self.since = since
            self.due = due
            self.toldTo = toldTo
        }
    }

    public init(
        lastStatus: PrintStatus? = nil, printID: String? = nil, milestonesSent: Set<Int> = [],
        milestoneReference: Double? = nil, lastLiveActivityPush: EpochTime? = nil,
        liveActivityDue: EpochTime? = nil, held: Held? = nil
    ) {
        self.held = held
        self.lastStatus = lastStatus
        self.printID = printID
        self.milestonesSent = milestonesSent
        self.milestoneReference = milestoneReference
        self.lastLiveActivityPush = lastLiveActivityPush
        self.liveActivityDue = liveActivityDue
    }

    /// A state with a verdict held, given as its parts (as a store keeps them).
    public init(
        lastStatus: PrintStatus? = nil, printID: String? = nil, milestonesSent: Set<Int> = [],
        milestoneReference: Double? = nil, lastLiveActivityPush: EpochTime? = nil,
        liveActivityDue: EpochTime? = nil, heldStatus: PrintStatus, heldDue: EpochTime, heldFile: String? = nil
    ) {
        self.init(
            lastStatus: lastStatus, printID: printID, milestonesSent: milestonesSent,
            milestoneReference: milestoneReference, lastLiveActivityPush: lastLiveActivityPush,
            liveActivityDue: liveActivityDue, held: Held(status: heldStatus, due: heldDue, file: heldFile))
    }

    /// The last status seen: the held one, else the one acted on.
    public var lastSeenStatus: PrintStatus? { held?.status ?? lastStatus }

    /// The earliest scheduled work: a held verdict or a routine update.
    var nextDue: EpochTime? {
        [held?.due, liveActivityDue, errorsDue, silence?.due].compactMap { $0 }.min()
    }
}

extension EpochTime: Codable {
    public init(from decoder: any Decoder) throws {
        seconds = try decoder.singleValueContainer().decode(Double.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(seconds)
    }
}
