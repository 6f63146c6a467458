/// The knobs of push planning, with the defaults DESIGN.md names.
public struct PlannerConfiguration: Hashable, Sendable {
    /// The app's bundle id: the alert topic, and the Live Activity topic's stem.
    public var bundleID: String
    /// Progress percentages that get an alert, each once per print.
    public var milestones: [Int]
    /// Routine Live Activity updates go out at most this often per printer (seconds).
    public var liveActivityInterval: Double
    /// A routine update waits this long after the first change (seconds), so
    /// the burst of entity updates HA sends for one printer report goes out
    /// as one push with every value fresh.
    public var liveActivitySettle: Double
    /// How long a Live Activity update stays fresh on the phone (seconds).
    public var staleAfter: Double
    /// How long an ended activity stays on the Lock Screen (seconds).
    public var dismissAfter: Double
    /// How long APNs keeps trying to deliver an alert to an offline phone (seconds).
    public var alertExpiration: Double
    /// Names to show for printers, by prefix, over what HA calls them.
    public var printerNames: [String: String]
    /// A start is told this long after the printer says `running` (seconds),
    /// so "Print Started" and the first Live Activity update carry the new
    /// print's file and values, which an integration may write a report later.
    public var startSettle: Double
    /// A failure waits this long for a cancel code that follows it (seconds),
    /// where the integration writes the status and the print error in no
    /// fixed order (`PrinterProfile.failureMayBeCancel`).
    public var cancelWindow: Double
    /// A print that leaves running/paused for idle or preparing is held this
    /// long (seconds): back to running with the same file, it was a flicker,
    /// not a new print.
    public var flickerWindow: Double
    /// A pause waits at most this long (seconds) for its reason (the stage,
    /// the print error, the printer errors), which an integration may write
    /// in the same update pass as the status in no fixed order; new printer
    /// errors wait as long for a pause or failure they may belong to.
    public var reasonWindow: Double
    /// A failure the integration announced (a bus event,
    /// `PrinterBusEvent.failed`) waits this long after its status (seconds)
    /// for a cancel code in the next report, instead of `cancelWindow`.
    /// 0.8 s: the alert must reach APNs within 1 s of HA's `failed` (issue
    /// 37), and ha-bambulab's next report comes about a second after the last.
    public var announcedFailureWait: Double
    /// A print whose printer carries no status (HA shows it `unavailable`,
    /// `offline`) this long (seconds) is told as offline; 0: never.
    public var offlineWindow: Double
    /// After a finish, "Ready to Remove" goes out once the bed is below this (°C).
    public var bedCooledBelow: Double
    /// The language of alerts for phones that did not say theirs.
    public var language: String
    /// How long APNs keeps trying to deliver a background push (seconds): a
    /// stale refresh is worthless, and the app refreshes when opened anyway.
    public var backgroundExpiration: Double = 3600
    /// At most this many background pushes go to one phone within
    /// `backgroundWindow` seconds (rolling); more are skipped. Apple: "don't
    /// try to send more than two or three notifications per hour".
    public var backgroundLimit = 3
    public var backgroundWindow: Double = 3600

    public static let defaultBundleID = "com.samduncan.PrinterMonitor"

    public init(
        bundleID: String = PlannerConfiguration.defaultBundleID, milestones: [Int] = [25, 50, 75],
        liveActivityInterval: Double = 30, liveActivitySettle: Double = 2, staleAfter: Double = 900, dismissAfter: Double = 3600,
        alertExpiration: Double = 86400, printerNames: [String: String] = [:], startSettle: Double = 5,
        cancelWindow: Double = 10, flickerWindow: Double = 60, reasonWindow: Double = 3, bedCooledBelow: Double = 35,
        language: String = "en", announcedFailureWait: Double = 0.8, offlineWindow: Double = 60
    ) {
        self.announcedFailureWait = announcedFailureWait
        self.offlineWindow = offlineWindow
        self.reasonWindow = reasonWindow
        self.bedCooledBelow = bedCooledBelow
        self.language = language
        self.startSettle = startSettle
        self.cancelWindow = cancelWindow
        self.flickerWindow = flickerWindow
        self.bundleID = bundleID
        self.milestones = milestones
        self.liveActivityInterval = liveActivityInterval
        self.liveActivitySettle = liveActivitySettle
        self.staleAfter = staleAfter
        self.dismissAfter = dismissAfter
        self.alertExpiration = alertExpiration
        self.printerNames = printerNames
    }

    public var alertTopic: String { bundleID }
    public var liveActivityTopic: String { bundleID + ".push-type.liveactivity" }

    /// The catalog of the `language` setting (English if there is none).
    public var catalog: Catalog { Catalog.forLanguage(language) ?? .english }

    /// A phone's catalog: its own language's, else the setting's.
    public func catalog(for device: Device) -> Catalog {
        Catalog.forLanguage(device.language) ?? catalog
    }

    /// Problems a user must fix before the planner can run.
    public func problems() -> [String] {
        var problems: [String] = []
        if bundleID.isEmpty { problems.append("bundle id is empty") }
        for milestone in milestones where !(1...99).contains(milestone) {
            problems.append("milestone \(milestone) is outside 1–99")
        }
        if Set(milestones).count != milestones.count { problems.append("milestones repeat") }
        if !(liveActivityInterval >= 0) { problems.append("Live Activity interval must be 0 or more seconds") }
        if !(liveActivitySettle >= 0) { problems.append("Live Activity settle time must be 0 or more seconds") }
        if !(staleAfter > 0) { problems.append("stale-after must be positive") }
        if !(dismissAfter >= 0) { problems.append("dismiss-after must be 0 or more seconds") }
        if Catalog.forLanguage(language) == nil {
            problems.append("alert language \"\(language)\" has no texts; languages: "
                + Catalog.languages.joined(separator: ", "))
        }
        if !(0...100).contains(bedCooledBelow) { problems.append("bed-cooled temperature must be 0–100 °C") }
        for (name, value) in [
            ("start settle", startSettle), ("cancel window", cancelWindow), ("flicker window", flickerWindow),
            ("reason window", reasonWindow), ("offline window", offlineWindow),
        ]
        where !(value >= 0) {
            problems.append("\(name) must be 0 or more seconds")
        }
        return problems
    }
}
