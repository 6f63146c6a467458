/// The one alert that tells a phone what was held in its quiet hours
/// (issue 53), in its language: a line a print or happening, in time
/// order, each with the local time it happened.
///
/// What was outdated by the end is told as what happened, not as if
/// current: a pause and its resume are one line ("paused 04:40 — Filament
/// ran out; resumed 05:10"), so are a printer gone offline and back; a
/// milestone only the highest of its print, and none for a print whose end
/// is in the summary.
public enum QuietSummary {
    /// Its `thread-id`, collapse id and the printer it is filed under.
    public static let thread = "printbridge-quiet-hours"

    /// The summary's lines for `alerts` (one phone's), oldest first.
    public static func lines(_ alerts: [HeldAlert], catalog: Catalog) -> [String] {
        let alerts = alerts.sorted { ($0.at, $0.printer) < ($1.at, $1.printer) }
        let ended = Set(alerts.filter { [.complete, .failed, .cancelled].contains($0.event) }.compactMap(\.printID))
        var highestMilestone: [String: Int] = [:]
        for alert in alerts where alert.event == .milestone {
            let key = alert.printID ?? alert.printer
            highestMilestone[key] = max(highestMilestone[key] ?? 0, alert.milestone ?? 0)
        }
        var lines: [String] = []
        var used = Set<Int>()
        for (index, alert) in alerts.enumerated() where !used.contains(index) {
            let time = QuietHours(start: 0, end: 1, timeZone: alert.timeZone).clockText(alert.at)
            let names: [String: CatalogArgument] = [
                "file": .text(alert.fileName.flatMap { $0.isEmpty ? nil : $0 } ?? catalog.text(.unnamedFile)),
                "printer": .text(alert.printerName), "time": .text(time),
            ]
            var what: String
            switch alert.event {
            case .started: what = catalog.text(.summaryStarted, names)
            case .complete: what = catalog.text(.summaryComplete, names)
            case .failed: what = catalog.text(.summaryFailed, names)
            case .cancelled: what = catalog.text(.summaryCancelled, names)
            case .paused: what = catalog.text(.summaryPaused, names)
            case .resumed: what = catalog.text(.summaryResumed, names)
            case .milestone:
                let key = alert.printID ?? alert.printer
                guard alert.printID.map({ !ended.contains($0) }) ?? true, alert.milestone == highestMilestone[key] else {
                    continue
                }
                highestMilestone[key] = nil  // once
                var arguments = names
                arguments["percent"] = .count(alert.milestone ?? 0)
                what = catalog.text(.summaryMilestone, arguments)
            case .printerError: what = catalog.text(.summaryPrinterError, names)
            case .bedCooled: what = catalog.text(.summaryBedCooled, names)
            case .firstLayer: what = catalog.text(.summaryFirstLayer, names)
            case .notify: what = ""
            case .minutesLeft: continue  // "10 minutes left" at night is outdated by the morning
            case .offline: what = catalog.text(.summaryOffline, names)
            case .backOnline: what = catalog.text(.summaryBackOnline, names)
            case .update, .end, .start, .history, .test, .summary: continue
            }
            if alert.event == .notify {
                what = alert.reason ?? ""  // the automation's words, as given
            } else if let reason = alert.reason, !reason.isEmpty {
                what = catalog.text(.summaryWithReason, ["what": .text(what), "reason": .text(reason)])
            }
            // The note that answered it (resumed, back online), later in the night: the same line.
            let answer: Push.Event? = alert.event == .paused ? .resumed : alert.event == .offline ? .backOnline : nil
            if let answer, let later = alerts.indices.first(where: {
                $0 > index && !used.contains($0) && alerts[$0].event == answer && alerts[$0].printer == alert.printer
                    && alerts[$0].printID == alert.printID
            }) {
                used.insert(later)
                let when = QuietHours(start: 0, end: 1, timeZone: alerts[later].timeZone).clockText(alerts[later].at)
                let key: Catalog.Key = answer == .resumed ? .summaryThenResumed : .summaryThenBackOnline
                what = catalog.text(key, ["what": .text(what), "time": .text(when)])
            }
            lines.append(catalog.text(.summaryLine, ["time": .text(time), "printer": .text(alert.printerName), "what": .text(what)]))
        }
        return lines
    }

    /// The summary alert for `device` of `alerts` at `now`, or nil when
    /// nothing is left to tell (every line outdated away).
    static func push(
        to device: Device, alerts: [HeldAlert], configuration: PlannerConfiguration, now: EpochTime
    ) -> Result<Push, PayloadError>? {
        let catalog = configuration.catalog(for: device)
        let lines = lines(alerts, catalog: catalog)
        guard !lines.isEmpty else { return nil }
        let payload = Result { () throws(PayloadError) in
            try SummaryPayload.fitting(lines: lines, title: catalog.text(.summaryTitle)) { count in
                catalog.text(.summaryMore, ["count": .count(count)])
            }
        }
        return payload.map { bytes in
            var push = Push(
                kind: .alert, event: .summary, printerPrefix: thread, deviceID: device.id, token: device.apnsToken,
                tokenKind: .device, topic: configuration.alertTopic, priority: 10, collapseID: thread,
                expiration: now + configuration.alertExpiration, payload: bytes, createdAt: now)
            push.apnsID = Push.derivedID("\(thread)|\(now.wholeSeconds)|\(device.apnsToken)")
            return push
        }
    }
}

/// The summary's body: an alert in a thread of its own, about no one
/// printer (no `printerState`, as the test push).
///
/// ```json
/// {"aps":{"alert":{"body":"03:12 X1C: benchy.3mf finished\n04:40 P1S: …","title":"During your quiet hours"},
///         "sound":"default","thread-id":"printbridge-quiet-hours"}}
/// ```
public struct SummaryPayload: Encodable, Hashable, Sendable {
    public var aps: AlertPayload.APS

    public init(title: String, body: String) {
        aps = AlertPayload.APS(
            alert: .init(title: title, body: body), sound: "default", threadID: QuietSummary.thread,
            interruptionLevel: nil, category: nil)
    }

    /// Every line that fits APNs' 4096 bytes, then "… and N more"; a first
    /// line too long alone (an automation's long words) is shortened with
    /// "…": the night is never lost to one line.
    static func fitting(lines: [String], title: String, more: (Int) -> String) throws(PayloadError) -> [UInt8] {
        var lines = lines
        var kept = lines.count
        while true {
            var body = lines[0..<kept].joined(separator: "\n")
            if kept < lines.count { body += "\n" + more(lines.count - kept) }
            let bytes = PayloadEncoding.encode(SummaryPayload(title: title, body: body))
            let over = bytes.count - PayloadLimits.maximumPayloadBytes
            if over <= 0 { return bytes }
            if kept > 1 {
                kept = max(1, kept - max(1, over / 40))
                continue
            }
            // Bytes off its end until it fits with "…" (3 bytes): a character
            // takes at least its UTF-8 bytes out of the JSON.
            var line = lines[0]
            var dropped = 0
            while dropped < over + 3, let last = line.popLast() { dropped += String(last).utf8.count }
            guard !line.isEmpty else { throw PayloadError(bytes: bytes.count) }
            lines[0] = line + "…"
        }
    }
}
