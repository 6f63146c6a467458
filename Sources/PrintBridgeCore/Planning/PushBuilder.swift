#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PrinterActivityContent

/// Builds the pushes of one plan for every device concerned.
struct PushBuilder {
    /// What tells one phone's alert payload from another's.
    private struct PayloadKey: Hashable {
        var language: String
        var printerName: String
        /// Told by the phone's Live Activity already (`AlertPayload.quieted`).
        var quiet = false
    }

    let configuration: PlannerConfiguration
    /// Each printer's broadcast channel id (`PushPlanner.channels`).
    let channels: [String: String]
    /// The printer with only the current print's readings (`PrinterSnapshot.currentPrint`).
    var snapshot: PrinterSnapshot
    let devices: [Device]
    let now: EpochTime
    /// The print the pushes belong to: their `apns-id`s derive from it.
    var printID: String?
    var plan = PushPlanner.Plan()

    init(
        configuration: PlannerConfiguration, channels: [String: String] = [:], snapshot: PrinterSnapshot,
        devices: [Device], now: EpochTime
    ) {
        self.configuration = configuration
        self.channels = channels
        self.snapshot = snapshot.currentPrint()
        self.devices = devices
        self.now = now
    }

    var prefix: String { snapshot.prefix }

    /// Whether any device has a Live Activity running for this printer.
    var hasLiveActivities: Bool { devices.contains { $0.activityTokens[prefix] != nil || followsByChannel($0) } }

    /// This printer's broadcast channel, if it has one.
    var channel: String? { channels[prefix] }

    /// Whether `device` follows this printer's activity by its channel: it
    /// gets the broadcast and never a push to a token as well. Without a
    /// channel (not made yet, or APNs refused one) nothing goes by channel.
    func followsByChannel(_ device: Device) -> Bool { channel != nil && device.channelPrinters.contains(prefix) }

    /// The phones that follow this printer's activity by channel.
    var channelFollowers: [Device] { devices.filter(followsByChannel) }

    /// The phones whose Live Activity push about `event` (a pause, a failure) will carry
    /// its alert audibly, so its ordinary alert goes quietly
    /// (`AlertPayload.quieted`; docs/BEHAVIOUR.md, "An alert inside the Live
    /// Activity"). A phone with an activity by token: when it wants the
    /// alert (its switch for the event). The phones on the channel share one
    /// broadcast: all of them when every one wants it, else none (a phone
    /// that switched the alert off is never lit by another's choice).
    func activityAlertRecipients(_ event: Push.Event) -> Set<String> {
        var recipients: Set<String> = []
        for device in devices where device.activityTokens[prefix] != nil && !followsByChannel(device) {
            if !device.isDisabled, lightsActivity(device, event) { recipients.insert(device.id) }
        }
        let followers = channelFollowers
        if !followers.isEmpty, followers.allSatisfy({ lightsActivity($0, event) }) {
            recipients.formUnion(followers.map(\.id))
        }
        return recipients
    }

    /// Whether `device`'s activity may carry its alert about `event` audibly:
    /// it wants the alert and its quiet hours do not hold it (a held alert
    /// waits for the morning's summary, its activity updates silently).
    private func lightsActivity(_ device: Device, _ event: Push.Event) -> Bool {
        device.preferences.wants(event) && !quietHoursHold(device, event, .none)
    }

    /// Whether `device`'s quiet hours hold its alert about `event` (with
    /// `detail`, which tells an urgent printer error) now.
    func quietHoursHold(_ device: Device, _ event: Push.Event, _ detail: AlertPayload.Detail) -> Bool {
        guard let quiet = device.preferences.schedule.quietHours else { return false }
        return quiet.holds(urgent: Self.isUrgent(event, detail), at: now)
    }

    /// The alert a Live Activity push carries about `event` for `device`,
    /// in its language, with `reason` when given (as the ordinary alert's)
    /// or else the printer's, and a sound.
    func activityAlert(
        _ event: Push.Event, status: PrintStatus, reason: Catalog.Key? = nil, catalog: Catalog, printerName: String
    ) -> LiveActivityPayload.Alert {
        let detail: AlertPayload.Detail
        if let reason {
            detail = .reason(catalog.text(reason))
        } else {
            detail = AlertReason.text(for: event, snapshot: snapshot, catalog: catalog).map(AlertPayload.Detail.reason) ?? .none
        }
        let alert = AlertPayload(
            event: event, prefix: prefix, printerName: printerName, fileName: snapshot.fileName, status: status,
            progress: Int((snapshot.progress ?? 0).rounded(.down)), detail: detail, catalog: catalog).aps.alert
        return .init(title: alert.title, body: alert.body, sound: "default")
    }

    /// The catalog of a broadcast's alert: the followers' language when
    /// they share one, else the agent's.
    var channelCatalog: Catalog {
        let languages = Set(channelFollowers.map { configuration.catalog(for: $0).language })
        if languages.count == 1, let first = channelFollowers.first { return configuration.catalog(for: first) }
        return configuration.catalog
    }

    /// The printer's name for `device`: the phone's own name for it if it
    /// gave one and follows only this printer. `shared` keeps the printer's
    /// own name for the next phone of a fan-out (working it out from the
    /// snapshot's entity names cost ~5,000 instructions a phone, callgrind
    /// on `replay --send`).
    func printerName(for device: Device, shared: inout String?) -> String {
        if let name = device.printerName, !name.isEmpty, device.printerPrefixes == [prefix] { return name }
        if let shared { return shared }
        let name = printerName
        shared = name
        return name
    }

    var printerName: String {
        configuration.printerNames[prefix] ?? snapshot.displayName ?? prefix
    }

    /// "x1c_00m09a350100123" → "X1C": a prefix's first part, which names the
    /// model where HA named the device after it.
    var printerModel: String {
        let parts = prefix.split(separator: "_")
        return parts.count > 1 ? parts[0].uppercased() : ""
    }

    /// The alert for `event` to every device that follows the printer and
    /// wants it (but those `skipping`), each in its own language. A pause,
    /// failure or cancel says why: `reason` when given, else what the
    /// printer said (`AlertReason`). It names the print (`printID`) unless
    /// it is about none (`aboutPrint` false: the printer went quiet while
    /// preparing). Returns the devices it went to.
    @discardableResult
    mutating func alert(
        _ event: Push.Event, status: PrintStatus, milestone: Int? = nil, reason: Catalog.Key? = nil,
        skipping: Set<String> = [], idName: String? = nil, aboutPrint: Bool = true, quieted: Set<String> = []
    ) -> Set<String> {
        let snapshot = snapshot
        return alert(
            event, status: status, milestone: milestone, idName: idName, skipping: skipping, aboutPrint: aboutPrint,
            quieted: quieted
        ) { catalog in
            if let reason { return .reason(catalog.text(reason)) }
            return AlertReason.text(for: event, snapshot: snapshot, catalog: catalog).map(AlertPayload.Detail.reason) ?? .none
        }
    }

    /// A quiet note (`resumed`, `back_online`) to the devices in `deviceIDs`
    /// that got the alert it answers, under that alert's collapse id
    /// (`replacing`), so the phone shows it in that alert's place.
    mutating func quietNote(
        _ event: Push.Event, replacing: Push.Event, to deviceIDs: Set<String>, idName: String, aboutPrint: Bool = true
    ) {
        alert(
            event, status: snapshot.status ?? .running, collapseKey: replacing.rawValue, idName: idName,
            only: deviceIDs, aboutPrint: aboutPrint, holdAs: replacing) { _ in .none }
    }

    /// A printer error on its own, collapsed per printer and error; it
    /// names the print when one is under way (`duringPrint`).
    /// Its `apns-id` derives from the error and when HA says it appeared,
    /// so one made again after a crash is recognisably the same.
    mutating func printerErrorAlert(_ error: PrinterError, duringPrint: Bool) {
        let since = snapshot.changedAt[.printerErrors]?.wholeSeconds ?? now.wholeSeconds
        alert(
            .printerError, status: snapshot.status ?? .idle, collapseKey: "error." + error.code,
            idName: "\(prefix)|error|\(error.code)|\(since)", aboutPrint: duringPrint
        ) { _ in .printerError(error) }
    }

    /// "Ready to Remove": the bed is down to `temperature` `minutes` after
    /// the finish (of the print `printID` still names).
    mutating func bedCooledAlert(temperature: Double, minutes: Int) {
        alert(.bedCooled, status: .complete) { _ in .bedCooled(temperature: temperature, minutes: minutes) }
    }

    /// The silent background push for a print that ended (`record`), to every
    /// device that follows the printer and has `backgroundRefresh` on:
    /// `content-available` only, priority 5 (Apple: 10 is an error), the
    /// bundle id as topic, collapsed per printer, worthless after an hour.
    /// The planner holds back those over a phone's hourly allowance.
    mutating func backgroundRefresh(_ record: PrintRecord, status: PrintStatus) {
        let payload = BackgroundPayload(record: record, status: status)
        var encoded: Result<[UInt8], PayloadError>?  // one payload for every phone: encoded once
        for device in devices where device.follows(prefix) && device.preferences.wants(.history) {
            let bytes = encoded ?? Result { () throws(PayloadError) in try payload.encoded() }
            encoded = bytes
            add(
                payload: { () throws(PayloadError) in try bytes.get() }, kind: .background, event: .history,
                device: device, token: device.apnsToken, tokenKind: .device, topic: configuration.alertTopic,
                priority: 5, collapseID: PayloadLimits.collapseID(prefix: prefix, event: Push.Event.history.rawValue),
                expiration: now + configuration.backgroundExpiration,
                idName: "\(record.printID)|history|\(record.outcome.rawValue)")
        }
    }

    /// An automation's alert (`printbridge_notify`) to every phone that
    /// follows the printer with alerts on, its words as given (HA's
    /// language: the automation's author wrote them), collapsed per printer.
    mutating func notifyAlert(_ request: NotifyRequest, at now: EpochTime) {
        alert(
            .notify, status: snapshot.status ?? .idle, collapseKey: "notify",
            idName: "\(prefix)|notify|\(now.seconds)|\(request.title)|\(request.message)", aboutPrint: false
        ) { _ in .message(request) }
    }

    /// "10 minutes left" to the phones not skipped (`PushPlanner+MinutesLeft`).
    mutating func minutesLeftAlert(_ minutes: Int, skipping: Set<String>) {
        alert(.minutesLeft, status: .running, idName: "\(printID ?? prefix)|minutes_left|\(minutes)", skipping: skipping) { _ in
            .minutesLeft(minutes)
        }
    }

    /// A test alert to `device` alone, in its language (`TestPayload`):
    /// whatever its switches say, as the phone (or its admin) asked for it;
    /// worthless after `TestPayload.expiration`. The builder's printer is
    /// `TestPayload.thread`.
    mutating func testAlert(to device: Device) {
        let payload = TestPayload(catalog: configuration.catalog(for: device))
        add(
            payload: { () throws(PayloadError) in try payload.encoded() }, kind: .alert, event: .test, device: device,
            token: device.apnsToken, tokenKind: .device, topic: configuration.alertTopic, priority: 10,
            collapseID: TestPayload.thread, expiration: now + TestPayload.expiration)
    }

    @discardableResult
    private mutating func alert(
        _ event: Push.Event, status: PrintStatus, milestone: Int? = nil, collapseKey: String? = nil,
        idName: String? = nil, skipping: Set<String> = [], only: Set<String>? = nil, aboutPrint: Bool = true,
        holdAs: Push.Event? = nil, quieted: Set<String> = [], detail: (Catalog) -> AlertPayload.Detail
    ) -> Set<String> {
        let progress = Int((snapshot.progress ?? 0).rounded(.down))
        var recipients: Set<String> = []
        // Phones differ only in language and the printer's name: each
        // distinct payload is encoded once and its bytes shared (the JSON
        // encoder is ~70,000 instructions a payload; a fan-out to
        // thousands of phones paid it for every one).
        var encoded: [PayloadKey: Result<[UInt8], PayloadError>] = [:]
        var sharedName: String?
        for device in devices where device.follows(prefix) && device.preferences.wants(event) {
            guard !skipping.contains(device.id), only?.contains(device.id) ?? true else { continue }
            recipients.insert(device.id)
            let catalog = configuration.catalog(for: device)
            let name = printerName(for: device, shared: &sharedName)
            // The phone's quiet hours: held for its summary (a quiet note as
            // the alert it answers), and its Live Activity not lit either
            // (`activityAlertRecipients`): the quiet hours come first.
            if let quiet = device.preferences.schedule.quietHours,
               quietHoursHold(device, holdAs ?? event, detail(catalog)) {
                plan.held.append(HeldAlert(
                    deviceID: device.id, printer: prefix, printerName: name, event: event, fileName: snapshot.fileName,
                    printID: aboutPrint ? printID : nil, milestone: milestone, reason: Self.reasonText(detail(catalog), catalog),
                    timeZone: quiet.timeZone, at: now, releaseAt: quiet.endAfter(now)))
                continue
            }
            let key = PayloadKey(language: catalog.language, printerName: name, quiet: quieted.contains(device.id))
            let bytes = encoded[key] ?? {
                var payload = AlertPayload(
                    event: event, prefix: prefix, printerName: name, fileName: snapshot.fileName,
                    status: status, progress: status == .complete ? 100 : progress, milestone: milestone,
                    detail: detail(catalog), catalog: catalog, printID: aboutPrint ? printID : nil)
                if key.quiet { payload = payload.quieted() }
                let result = Result { () throws(PayloadError) in try payload.encoded() }
                encoded[key] = result
                return result
            }()
            add(
                payload: { () throws(PayloadError) in try bytes.get() }, kind: .alert, event: event,
                device: device, token: device.apnsToken, tokenKind: .device, topic: configuration.alertTopic,
                priority: 10, collapseID: PayloadLimits.collapseID(prefix: prefix, event: collapseKey ?? event.rawValue),
                expiration: now + configuration.alertExpiration, milestone: milestone, idName: idName,
                wantsSnapshot: event.mayCarrySnapshot && device.preferences.snapshots)
        }
        return recipients
    }

    /// Whether an alert breaks through quiet hours that let the urgent
    /// through: a failure, a printer gone offline mid-print, a printer error
    /// the alert marks time-sensitive (serious or fatal).
    static func isUrgent(_ event: Push.Event, _ detail: AlertPayload.Detail) -> Bool {
        switch (event, detail) {
        case (.failed, _), (.offline, _): return true
        case (.printerError, .printerError(let error)): return error.severity.isUrgent
        case (.notify, .message(let request)): return request.level == .timeSensitive
        default: return false
        }
    }

    /// What a held alert's summary line says beside what happened.
    static func reasonText(_ detail: AlertPayload.Detail, _ catalog: Catalog) -> String? {
        switch detail {
        case .reason(let text): return text
        case .printerError(let error):
            return error.text.isEmpty ? catalog.text(.printerErrorUnknown, ["code": .text(error.code)]) : error.text
        case .message(let request): return request.title.isEmpty ? request.message : request.title + ": " + request.message
        case .none, .bedCooled, .minutesLeft: return nil
        }
    }

    /// Sends the current state to every Live Activity of this printer, with
    /// `status` (the status a change is about) or else the printer's: a
    /// push to each activity token (iOS 17), and one broadcast to the
    /// printer's channel for the phones that follow it by channel (iOS 18);
    /// never both to one phone. Every push carries the printer's
    /// `relevance-score` (`ActivityRelevance`); with `alerting`, those to
    /// `activityAlertRecipients(alerting)` carry its alert (with `reason`
    /// as its detail when given); `onlyAlerting`: to those alone (a
    /// failure's update before the end, for the phones it lights).
    /// Returns whether anything was sent.
    @discardableResult
    mutating func liveActivityUpdate(
        priority: Int, status: PrintStatus? = nil, alerting: Push.Event? = nil, reason: Catalog.Key? = nil,
        onlyAlerting: Bool = false
    ) -> Bool {
        let state = snapshot.contentState(status: status)
        let relevance = ActivityRelevance.score(snapshot, status: status)
        let now = now, staleAfter = configuration.staleAfter
        return liveActivityPushes(event: .update, priority: priority, alerting: alerting, reason: reason,
                                  onlyAlerting: onlyAlerting, status: status ?? .running,
                                  expiration: now + staleAfter) { alert in
            LiveActivityPayload.update(state, at: now, staleAfter: staleAfter, relevance: relevance, alert: alert)
        }
    }

    /// Ends every Live Activity of this printer with the real final values
    /// (the tokens', and the channel's for its followers). No alert: an
    /// activity's end carries none (ActivityKit's `end(_:dismissalPolicy:)`
    /// has no alert configuration, unlike `update(_:alertConfiguration:)`),
    /// so a failure's alert goes in an update just before (`PushPlanner.apply`).
    mutating func liveActivityEnd(status: PrintStatus) {
        let payload = LiveActivityPayload.end(
            snapshot.contentState(status: status), at: now, dismissAfter: configuration.dismissAfter,
            relevance: ActivityRelevance.score(snapshot, status: status))
        liveActivityPushes(event: .end, priority: 10, alerting: nil, status: status,
                           expiration: now + configuration.dismissAfter) { _ in payload }
        for device in devices {
            if let token = device.activityTokens[prefix], !followsByChannel(device) {
                plan.endedActivities.append(.init(deviceID: device.id, prefix: prefix, token: token))
            }
        }
        if let channel {
            for device in channelFollowers {
                plan.endedActivities.append(.init(deviceID: device.id, prefix: prefix, token: channel))
            }
        }
    }

    /// One Live Activity push to each activity token not on the channel,
    /// and one broadcast for the channel's followers. `payload` makes the
    /// body for an alert (or none); each distinct body is encoded once.
    @discardableResult
    private mutating func liveActivityPushes(
        event: Push.Event, priority: Int, alerting: Push.Event?, reason: Catalog.Key? = nil, onlyAlerting: Bool = false,
        status: PrintStatus, expiration: EpochTime, payload: (LiveActivityPayload.Alert?) -> LiveActivityPayload
    ) -> Bool {
        let recipients = alerting.map(activityAlertRecipients) ?? []
        var encoded: [LiveActivityPayload.Alert?: Result<[UInt8], PayloadError>] = [:]
        func bytes(_ alert: LiveActivityPayload.Alert?) -> Result<[UInt8], PayloadError> {
            if let known = encoded[alert] { return known }
            let body = payload(alert)
            let result = Result { () throws(PayloadError) in try body.encoded() }
            encoded[alert] = result
            return result
        }
        var sent = false
        var sharedName: String?
        let collapseID = PayloadLimits.collapseID(prefix: prefix, event: "activity")
        for device in devices {
            guard let token = device.activityTokens[prefix], !followsByChannel(device) else { continue }
            if onlyAlerting && !recipients.contains(device.id) { continue }
            var alert: LiveActivityPayload.Alert?
            if let alerting, recipients.contains(device.id) {
                alert = activityAlert(
                    alerting, status: status, reason: reason, catalog: configuration.catalog(for: device),
                    printerName: printerName(for: device, shared: &sharedName))
            }
            let body = bytes(alert)
            add(
                payload: { () throws(PayloadError) in try body.get() }, kind: .liveActivity, event: event,
                device: device, token: token, tokenKind: .activity, topic: configuration.liveActivityTopic,
                priority: priority, collapseID: collapseID, expiration: expiration)
            sent = true
        }
        let followers = channelFollowers
        if let channel, !followers.isEmpty, !onlyAlerting || recipients.contains(followers[0].id) {
            var alert: LiveActivityPayload.Alert?
            if let alerting, recipients.contains(followers[0].id) {
                alert = activityAlert(
                    alerting, status: status, reason: reason, catalog: channelCatalog, printerName: printerName)
            }
            let body = bytes(alert)
            add(
                payload: { () throws(PayloadError) in try body.get() }, kind: .liveActivity, event: event,
                device: Device(id: PushBuilder.channelDeviceID(prefix), apnsToken: ""), token: channel,
                tokenKind: .channel, topic: configuration.liveActivityTopic, priority: priority,
                collapseID: collapseID, expiration: expiration)
            sent = true
        }
        return sent
    }

    /// The device id a broadcast's push carries (no phone of its own).
    static func channelDeviceID(_ prefix: String) -> String { "channel:" + prefix }

    /// Starts the activity remotely on devices that gave a push-to-start token
    /// and have no activity for this printer yet. Its payload carries the
    /// "Print Started" alert, so it follows the device's start preference.
    mutating func pushToStart() {
        var encoded: [PayloadKey: Result<[UInt8], PayloadError>] = [:]
        var sharedName: String?
        for device in devices {
            guard let token = device.pushToStartToken, device.follows(prefix),
                device.preferences.wants(.started), !device.hasActivity(for: prefix)
            else { continue }
            let name = printerName(for: device, shared: &sharedName)
            let catalog = configuration.catalog(for: device)
            let key = PayloadKey(language: catalog.language, printerName: name)
            let bytes = encoded[key] ?? {
                let file = snapshot.fileName ?? catalog.text(.unnamedFile)
                let attributes = PrinterActivityAttributes(
                    filename: file, startTime: Date(timeIntervalSince1970: now.seconds), printerName: name,
                    printerModel: printerModel, entityPrefix: prefix)
                let payload = LiveActivityPayload.start(
                    snapshot.contentState(status: .running), attributes: attributes, at: now,
                    staleAfter: configuration.staleAfter, catalog: catalog,
                    relevance: ActivityRelevance.score(snapshot, status: .running))
                let result = Result { () throws(PayloadError) in try payload.encoded() }
                encoded[key] = result
                return result
            }()
            add(
                payload: { () throws(PayloadError) in try bytes.get() }, kind: .liveActivity, event: .start,
                device: device, token: token, tokenKind: .pushToStart, topic: configuration.liveActivityTopic,
                priority: 10, collapseID: PayloadLimits.collapseID(prefix: prefix, event: "activity-start"),
                expiration: now + configuration.staleAfter)
        }
    }

    private mutating func add(
        payload: () throws(PayloadError) -> [UInt8], kind: Push.Kind, event: Push.Event, device: Device,
        token: String, tokenKind: Push.TokenKind, topic: String, priority: Int, collapseID: String,
        expiration: EpochTime, milestone: Int? = nil, idName: String? = nil, wantsSnapshot: Bool = false
    ) {
        do throws(PayloadError) {
            var push = Push(
                kind: kind, event: event, printerPrefix: prefix, deviceID: device.id, token: token,
                tokenKind: tokenKind, topic: topic, priority: priority, collapseID: collapseID,
                expiration: expiration, payload: try payload(), createdAt: now)
            push.wantsSnapshot = wantsSnapshot
            // A print's notifications (not its routine updates) have an id of their own.
            if let idName {
                push.apnsID = Push.derivedID("\(idName)|\(token)")
            } else if let printID, event != .update {
                push.apnsID = Push.derivedID("\(printID)|\(event.rawValue)|\(milestone ?? 0)|\(token)")
            }
            plan.pushes.append(push)
        } catch {
            plan.failures.append(
                "\(event.rawValue) push for \(prefix) to \(TokenFormat.shortened(token)) not sent: \(error)")
        }
    }
}
