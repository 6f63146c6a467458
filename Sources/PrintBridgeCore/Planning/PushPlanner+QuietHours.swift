/// Quiet hours (issue 53): the alerts a phone's quiet hours held
/// (`PushBuilder` holds them, `HeldAlert`) are kept here until those hours
/// end, then told in one summary alert (`QuietSummary`) in its language.
/// Live Activity updates and background pushes are never held.
extension PushPlanner {
    /// Keeps what `plan` held.
    mutating func keepHeld(_ plan: inout Plan) {
        guard !plan.held.isEmpty else { return }
        heldAlerts += plan.held
        plan.heldChanged = true
    }

    /// Tells each phone whose quiet hours ended by `time` what they held,
    /// in one alert made at their end. A phone that moved its quiet hours
    /// meanwhile (still quiet then) waits for their new end; one gone, or
    /// whose token APNs refused, is told nothing.
    mutating func releaseHeld(upTo time: EpochTime, devices: [Device], into plan: inout Plan) {
        let due = Set(heldAlerts.lazy.filter { $0.releaseAt <= time }.map(\.deviceID))
        for id in due.sorted() {
            let mine = heldAlerts.filter { $0.deviceID == id }
            guard let releaseAt = mine.map(\.releaseAt).min() else { continue }
            plan.heldChanged = true
            guard let device = devices.first(where: { $0.id == id && $0.receivesAlerts && !$0.isDisabled }) else {
                heldAlerts.removeAll { $0.deviceID == id }
                continue
            }
            if let quiet = device.preferences.schedule.quietHours, quiet.contains(releaseAt) {
                let end = quiet.endAfter(releaseAt)
                for index in heldAlerts.indices where heldAlerts[index].deviceID == id { heldAlerts[index].releaseAt = end }
                continue
            }
            heldAlerts.removeAll { $0.deviceID == id }
            switch QuietSummary.push(to: device, alerts: mine, configuration: configuration, now: releaseAt) {
            case .success(let push)?: plan.pushes.append(push)
            case .failure(let error)?:
                plan.failures.append("quiet hours summary to \(TokenFormat.shortened(device.apnsToken)) not sent: \(error)")
            case nil: break
            }
        }
    }
}
