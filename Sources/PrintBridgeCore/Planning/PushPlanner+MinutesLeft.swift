/// "N minutes left" (issue 53, mobileraker's most asked-for option): once a
/// print, to each phone that set `minutesLeft`, when the remaining time the
/// printer reports first falls to N minutes or less from above it. The
/// remaining time is the snapshot's `remainingSeconds`: ha-bambulab's
/// `remaining_time` in minutes (pybambu models.py `mc_remaining_time`),
/// OctoPrint's and Moonraker's in seconds or as a finish time, each read by
/// its profile. A reading first seen under N (a print first seen near its
/// end, a restart) is a baseline, not a crossing; an estimate that goes back
/// up and down again is not told twice (in memory: a restart forgets it).
extension PushPlanner {
    mutating func checkMinutesLeft(_ change: PrinterChange, state: PrinterNotificationState, builder: inout PushBuilder) {
        guard state.lastStatus == .running, state.held == nil, let left = change.current.remainingSeconds, left > 0,
            let before = change.previous.remainingSeconds
        else { return }
        let prefix = builder.prefix
        var told = minutesLeftTold[prefix].flatMap { $0.printID == state.printID ? $0.devices : nil } ?? []
        var byMinutes: [Int: Set<String>] = [:]
        var everyone: Set<String> = []
        for device in builder.devices where device.follows(prefix) {
            everyone.insert(device.id)
            guard let minutes = device.preferences.schedule.minutesLeft, !told.contains(device.id) else { continue }
            guard left <= minutes * 60, before > minutes * 60 else { continue }
            byMinutes[minutes, default: []].insert(device.id)
        }
        guard !byMinutes.isEmpty else { return }
        for (minutes, hearing) in byMinutes.sorted(by: { $0.key < $1.key }) {
            builder.minutesLeftAlert(minutes, skipping: everyone.subtracting(hearing))
            told.formUnion(hearing)
        }
        minutesLeftTold[prefix] = (state.printID, told)
    }
}
