#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PrinterActivityContent

/// Turns printer changes into pushes: which alerts and Live Activity updates
/// go to which device, and when.
///
/// A pure state machine: a change, the devices and the time go in; pushes
/// and the new per-printer memory come out. Transitions are judged against
/// the last *known* status, so HA restarts and reconnects never re-alert.
public struct PushPlanner: Sendable {
    public var configuration: PlannerConfiguration
    public private(set) var printers: [String: PrinterNotificationState]

    /// What one change produced.
    public struct Plan: Hashable, Sendable {
        public var pushes: [Push] = []
        /// Live Activities ended by this plan: their update tokens are spent.
        public var endedActivities: [ActivityEnd] = []
        /// Pushes that could not be built (payload over APNs' limit), with the reason.
        public var failures: [String] = []
        /// Whether the printer's notification state changed (so a store should save it
        /// before the pushes are handed to APNs).
        public var stateChanged = false
    }

    public struct ActivityEnd: Hashable, Sendable {
        public var deviceID: String
        public var prefix: String

        public init(deviceID: String, prefix: String) {
            self.deviceID = deviceID
            self.prefix = prefix
        }
    }

    public init(configuration: PlannerConfiguration = .init(), restoring state: [String: PrinterNotificationState] = [:]) {
        self.configuration = configuration
        self.printers = state
    }

    /// - Parameter milestonesAllowed: false while applying a snapshot in which
    ///   the printer's status is no longer active: a print that finished while
    ///   the agent was away gets its "complete", not the milestones it passed.
    public mutating func plan(
        _ change: PrinterChange, devices: [Device], now: EpochTime, milestonesAllowed: Bool = true
    ) -> Plan {
        let prefix = change.prefix
        let before = printers[prefix] ?? PrinterNotificationState()
        var state = before
        var builder = Builder(configuration: configuration, snapshot: change.current, devices: devices, now: now)
        var liveActivityHandled = false

        if let status = change.current.status, status != state.lastStatus {
            if let last = state.lastStatus {
                if let transition = Transition(from: last, to: status) {
                    apply(transition, state: &state, builder: &builder)
                    liveActivityHandled = true
                }
            } else {
                takeBaseline(status, state: &state, snapshot: change.current, now: now)
            }
            state.lastStatus = status
        }

        if change.field == .progress, change.current.progress != change.previous.progress {
            checkMilestones(state: &state, builder: &builder, alerting: milestonesAllowed)
        }

        if !liveActivityHandled, state.liveActivityDue == nil, state.lastStatus?.isActive == true,
            builder.hasLiveActivities,
            change.current.contentState(status: state.lastStatus) != change.previous.contentState(status: state.lastStatus)
        {
            // Routine change: schedule, don't send. `fireDue` sends the latest values
            // once the burst has settled and the throttle interval has passed.
            let settled = now + configuration.liveActivitySettle
            let allowed = state.lastLiveActivityPush.map { $0 + configuration.liveActivityInterval } ?? settled
            state.liveActivityDue = max(settled, allowed)
        }

        printers[prefix] = state
        var plan = builder.plan
        plan.stateChanged = state != before
        return plan
    }

    /// The earliest time a scheduled Live Activity update is due, if any.
    public var nextDue: EpochTime? {
        printers.values.compactMap(\.liveActivityDue).min()
    }

    /// Sends every routine Live Activity update due at or before `time`, each
    /// stamped with its own due time and carrying the printer's latest values.
    public mutating func fireDue(upTo time: EpochTime, printers snapshots: PrinterCache, devices: [Device]) -> Plan {
        var plan = Plan()
        var due: [(prefix: String, time: EpochTime)] = []
        for (prefix, state) in printers {
            if let dueTime = state.liveActivityDue, dueTime <= time { due.append((prefix, dueTime)) }
        }
        due.sort { $0.time < $1.time || ($0.time == $1.time && $0.prefix < $1.prefix) }
        for (prefix, dueTime) in due {
            guard var state = printers[prefix] else { continue }
            state.liveActivityDue = nil
            if let snapshot = snapshots[prefix], state.lastStatus?.isActive == true {
                var builder = Builder(configuration: configuration, snapshot: snapshot, devices: devices, now: dueTime)
                if builder.liveActivityUpdate(priority: 5) { state.lastLiveActivityPush = dueTime }
                plan.pushes += builder.plan.pushes
                plan.failures += builder.plan.failures
            }
            printers[prefix] = state
            plan.stateChanged = true
        }
        return plan
    }

    /// Forgets a printer's memory (e.g. the printer was removed from HA).
    public mutating func forget(_ prefix: String) {
        printers[prefix] = nil
    }

    private func apply(_ transition: Transition, state: inout PrinterNotificationState, builder: inout Builder) {
        let now = builder.now
        switch transition {
        case .started:
            state.printID = "\(builder.snapshot.prefix)-\(now.wholeSeconds)"
            state.milestonesSent = []
            state.milestoneReference = 0
            builder.alert(.started, status: .running)
            builder.pushToStart()
            immediateUpdate(state: &state, builder: &builder)
        case .resumed:
            immediateUpdate(state: &state, builder: &builder)
        case .paused:
            builder.alert(.paused, status: .paused)
            immediateUpdate(state: &state, builder: &builder)
        case .complete, .failed, .cancelled:
            let status = builder.snapshot.status ?? .complete
            builder.alert(transition.alertEvent!, status: status)
            builder.liveActivityEnd(status: status)
            state.lastLiveActivityPush = nil
            state.liveActivityDue = nil
        }
    }

    /// A status change reaches the Lock Screen at once, at priority 10, and
    /// makes any scheduled routine update unnecessary.
    private func immediateUpdate(state: inout PrinterNotificationState, builder: inout Builder) {
        state.liveActivityDue = nil
        if builder.liveActivityUpdate(priority: 10) { state.lastLiveActivityPush = builder.now }
    }

    /// The first status seen: no alert. A print already under way takes its
    /// current progress as the milestone baseline, so nothing behind it fires.
    private func takeBaseline(
        _ status: PrintStatus, state: inout PrinterNotificationState, snapshot: PrinterSnapshot, now: EpochTime
    ) {
        guard status.isActive else { return }
        state.printID = "\(snapshot.prefix)-\(now.wholeSeconds)"
        state.milestonesSent = []
        state.milestoneReference = snapshot.progress
        if let progress = snapshot.progress {
            state.milestonesSent = Set(configuration.milestones.filter { Double($0) <= progress })
        }
    }

    /// Sends the highest milestone crossed since the last reading of this print, once.
    private func checkMilestones(state: inout PrinterNotificationState, builder: inout Builder, alerting: Bool) {
        guard state.lastStatus?.isActive == true, let progress = builder.snapshot.progress else { return }
        guard let reference = state.milestoneReference else {
            // First reading of a print first seen mid-way: a baseline, not a crossing.
            state.milestoneReference = progress
            state.milestonesSent.formUnion(configuration.milestones.filter { Double($0) <= progress })
            return
        }
        let crossed = configuration.milestones.filter {
            Double($0) > reference && Double($0) <= progress && !state.milestonesSent.contains($0)
        }
        state.milestoneReference = progress
        guard let highest = crossed.max() else { return }
        state.milestonesSent.formUnion(crossed)
        if alerting { builder.alert(.milestone, status: state.lastStatus ?? .running, milestone: highest) }
    }
}

/// Builds the pushes of one plan for every device concerned.
private struct Builder {
    let configuration: PlannerConfiguration
    let snapshot: PrinterSnapshot
    let devices: [Device]
    let now: EpochTime
    var plan = PushPlanner.Plan()

    var prefix: String { snapshot.prefix }

    /// Whether any device has a Live Activity running for this printer.
    var hasLiveActivities: Bool { devices.contains { $0.activityTokens[prefix] != nil } }

    func printerName(for device: Device) -> String {
        if let name = device.printerName, !name.isEmpty, device.printerPrefixes == [prefix] { return name }
        return printerName
    }

    var printerName: String {
        configuration.printerNames[prefix] ?? snapshot.displayName ?? prefix
    }

    /// "x1c_00m09a350100123" → "X1C": the model part of a Bambu-style prefix.
    var printerModel: String {
        let parts = prefix.split(separator: "_")
        return parts.count > 1 ? parts[0].uppercased() : ""
    }

    mutating func alert(_ event: Push.Event, status: PrintStatus, milestone: Int? = nil) {
        let progress = Int((snapshot.progress ?? 0).rounded(.down))
        for device in devices where device.follows(prefix) && device.preferences.wants(event) {
            let payload = AlertPayload(
                event: event, prefix: prefix, printerName: printerName(for: device), fileName: snapshot.fileName,
                status: status, progress: status == .complete ? 100 : progress, milestone: milestone)
            add(
                payload: { () throws(PayloadError) in try payload.encoded() }, kind: .alert, event: event,
                device: device, token: device.apnsToken, tokenKind: .device, topic: configuration.alertTopic,
                priority: 10, collapseID: PayloadLimits.collapseID(prefix: prefix, event: event.rawValue),
                expiration: now + configuration.alertExpiration)
        }
    }

    /// Sends the current state to every Live Activity of this printer. Returns
    /// whether any token received it.
    mutating func liveActivityUpdate(priority: Int) -> Bool {
        let state = snapshot.contentState()
        let payload = LiveActivityPayload.update(state, at: now, staleAfter: configuration.staleAfter)
        var sent = false
        for device in devices {
            guard let token = device.activityTokens[prefix] else { continue }
            add(
                payload: { () throws(PayloadError) in try payload.encoded() }, kind: .liveActivity, event: .update,
                device: device, token: token, tokenKind: .activity, topic: configuration.liveActivityTopic,
                priority: priority, collapseID: PayloadLimits.collapseID(prefix: prefix, event: "activity"),
                expiration: now + configuration.staleAfter)
            sent = true
        }
        return sent
    }

    /// Ends every Live Activity of this printer with the real final values.
    mutating func liveActivityEnd(status: PrintStatus) {
        let payload = LiveActivityPayload.end(
            snapshot.contentState(status: status), at: now, dismissAfter: configuration.dismissAfter)
        for device in devices {
            guard let token = device.activityTokens[prefix] else { continue }
            add(
                payload: { () throws(PayloadError) in try payload.encoded() }, kind: .liveActivity, event: .end,
                device: device, token: token, tokenKind: .activity, topic: configuration.liveActivityTopic,
                priority: 10, collapseID: PayloadLimits.collapseID(prefix: prefix, event: "activity"),
                expiration: now + configuration.dismissAfter)
            plan.endedActivities.append(.init(deviceID: device.id, prefix: prefix))
        }
    }

    /// Starts the activity remotely on devices that gave a push-to-start token
    /// and have no activity for this printer yet. Its payload carries the
    /// "Print Started" alert, so it follows the device's start preference.
    mutating func pushToStart() {
        for device in devices {
            guard let token = device.pushToStartToken, device.follows(prefix),
                device.preferences.wants(.started), device.activityTokens[prefix] == nil
            else { continue }
            let name = printerName(for: device)
            let file = snapshot.fileName ?? "Print"
            let attributes = PrinterActivityAttributes(
                filename: file, startTime: Date(timeIntervalSince1970: now.seconds), printerName: name,
                printerModel: printerModel, entityPrefix: prefix)
            let payload = LiveActivityPayload.start(
                snapshot.contentState(status: .running), attributes: attributes, at: now,
                staleAfter: configuration.staleAfter)
            add(
                payload: { () throws(PayloadError) in try payload.encoded() }, kind: .liveActivity, event: .start,
                device: device, token: token, tokenKind: .pushToStart, topic: configuration.liveActivityTopic,
                priority: 10, collapseID: PayloadLimits.collapseID(prefix: prefix, event: "activity-start"),
                expiration: now + configuration.staleAfter)
        }
    }

    private mutating func add(
        payload: () throws(PayloadError) -> [UInt8], kind: Push.Kind, event: Push.Event, device: Device,
        token: String, tokenKind: Push.TokenKind, topic: String, priority: Int, collapseID: String,
        expiration: EpochTime
    ) {
        do throws(PayloadError) {
            plan.pushes.append(
                Push(
                    kind: kind, event: event, printerPrefix: prefix, deviceID: device.id, token: token,
                    tokenKind: tokenKind, topic: topic, priority: priority, collapseID: collapseID,
                    expiration: expiration, payload: try payload(), createdAt: now))
        } catch {
            plan.failures.append(
                "\(event.rawValue) push for \(prefix) to \(TokenFormat.shortened(token)) not sent: \(error)")
        }
    }
}
