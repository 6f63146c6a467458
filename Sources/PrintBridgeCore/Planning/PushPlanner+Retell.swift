/// Told again when unseen (issue 53): a failure or a printer error that the phone has not opened within its
/// `retellAfterMinutes` is sent once more, `time-sensitive` and with a sound
/// (the first may have gone quietly, told by its Live Activity), under the same
/// collapse id (iOS puts it in the first one's place), unless the printer
/// has moved on by then. The app says an alert was opened with
/// `POST /api/devices/{deviceId}/notifications/{id}/opened`
/// (`PushPlanner.opened`). The agent keeps what waits in the store, so a
/// restart within the delay still tells it.
extension PushPlanner {
    /// One alert waiting to be told again.
    public struct Retell: Hashable, Sendable {
        public var push: Push
        /// The print it was about (a failure, an offline printer).
        public var printID: String?
        /// The printer error's text it told (a printer error; for the log and the store: the match is by code).
        public var errorText: String?
        public var due: EpochTime

        public init(push: Push, printID: String?, errorText: String?, due: EpochTime) {
            self.push = push
            self.printID = printID
            self.errorText = errorText
            self.due = due
        }
    }

    /// Notes the time-sensitive alerts of `plan` whose phones want them
    /// told again; gives each an `apns-id` now, so the app's "opened" finds it.
    mutating func noteRetells(_ plan: inout Plan, devices: [Device]) {
        for index in plan.pushes.indices {
            let push = plan.pushes[index]
            guard push.kind == .alert, push.tokenKind == .device, push.event.isRetold,
                let device = devices.first(where: { $0.id == push.deviceID }),
                device.preferences.schedule.retellAfterMinutes > 0
            else { continue }
            if push.apnsID == nil { plan.pushes[index].apnsID = Push.randomID() }
            let state = (try? JSONParser.parse(push.payload))?.objectValue?["printerState"]?.objectValue
            plan.retellsChanged = true
            retells.append(Retell(
                push: plan.pushes[index], printID: state?["printId"]?.stringValue,
                errorText: push.event == .printerError ? state?["reason"]?.stringValue : nil,
                due: push.createdAt + Double(device.preferences.schedule.retellAfterMinutes * 60)))
        }
    }

    /// The app says the alert `apnsID` was opened: it is not told again.
    /// Returns whether one was waiting.
    @discardableResult
    public mutating func opened(apnsID: String) -> Bool {
        let before = retells.count
        retells.removeAll { $0.push.apnsID == apnsID }
        return retells.count != before
    }

    /// Tells again, once, each alert due by `time` that nobody opened,
    /// unless its printer moved on: a failure's printer printing again (a
    /// new or resumed print), a printer error gone from the printer's
    /// errors. The phone's settings as they are now count: gone, refused, no
    /// longer following, the alert or re-telling switched off: nothing. In
    /// the phone's quiet hours it waits for their end, unless it may break
    /// through (`QuietHours.holds`).
    mutating func releaseRetells(upTo time: EpochTime, printers snapshots: PrinterCache, devices: [Device], into plan: inout Plan) {
        let due = retells.filter { $0.due <= time }
        guard !due.isEmpty else { return }
        retells.removeAll { $0.due <= time }
        plan.retellsChanged = true
        for var retell in due {
            guard let device = devices.first(where: { $0.id == retell.push.deviceID }), device.follows(retell.push.printerPrefix),
                device.apnsToken == retell.push.token, device.preferences.wants(retell.push.event),
                device.preferences.schedule.retellAfterMinutes > 0, !movedOn(retell)
            else { continue }
            var detail = AlertPayload.Detail.none
            if retell.push.event == .printerError {
                // The error by its code (the alert's collapse id holds it): its text may be empty.
                let errors = snapshots[retell.push.printerPrefix]?.printerErrors ?? []
                guard let error = errors.first(where: {
                    retell.push.collapseID == PayloadLimits.collapseID(prefix: retell.push.printerPrefix, event: "error." + $0.code)
                }) else { continue }
                detail = .printerError(error)
            }
            // The first telling's rule (a failure; a serious or fatal printer error).
            if let quiet = device.preferences.schedule.quietHours,
                quiet.holds(urgent: PushBuilder.isUrgent(retell.push.event, detail), at: time) {
                retell.due = quiet.endAfter(time)
                retells.append(retell)
                continue
            }
            var push = retell.push
            push.payload = Self.timeSensitiveWithSound(push.payload)
            push.apnsID = Push.derivedID("retell|\(retell.push.apnsID ?? "")")
            push.createdAt = retell.due
            push.expiration = retell.due + configuration.alertExpiration
            plan.pushes.append(push)
        }
    }

    /// Whether the printer moved on since the alert.
    private func movedOn(_ retell: Retell) -> Bool {
        guard let state = printers[retell.push.printerPrefix] else { return true }
        switch retell.push.event {
        case .failed:
            return state.printID != retell.printID || state.lastStatus?.isActive == true || state.lastStatus == .preparing
        default:
            return false
        }
    }

    /// The payload with `aps.interruption-level` `time-sensitive` and the
    /// default sound (a first alert lit by its Live Activity had none).
    static func timeSensitiveWithSound(_ payload: [UInt8]) -> [UInt8] {
        guard case .object(var root)? = try? JSONParser.parse(payload), case .object(var aps)? = root["aps"] else {
            return payload
        }
        aps["interruption-level"] = .string("time-sensitive")
        if aps["sound"] == nil { aps["sound"] = .string("default") }
        root["aps"] = .object(aps)
        return Array(JSONText.encode(.object(root)).utf8)
    }
}
