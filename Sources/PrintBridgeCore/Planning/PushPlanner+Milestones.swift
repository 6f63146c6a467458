/// Progress milestones: the highest crossed since the last reading of a
/// print, once per print. Each phone has its own list (issue 53:
/// `AlertSchedule.milestones`, else the agent's `MILESTONES`): the printer's
/// memory counts the milestones of every list, and each phone hears the
/// highest of its own crossed by this reading.
extension PushPlanner {
    /// The milestones any phone following the printer counts.
    func milestones(for builder: PushBuilder) -> Set<Int> {
        var all = Set(configuration.milestones)
        for device in builder.devices where device.follows(builder.prefix) {
            if let own = device.preferences.schedule.milestones { all.formUnion(own) }
        }
        return all
    }

    /// Sends each phone the highest of its milestones crossed since the last
    /// reading of this print, once.
    func checkMilestones(
        state: inout PrinterNotificationState, builder: inout PushBuilder, alerting: Bool, skipping: Set<String> = []
    ) {
        guard state.lastStatus?.isActive == true, let progress = builder.snapshot.progress else { return }
        let all = milestones(for: builder)
        guard let reference = state.milestoneReference else {
            // First reading of a print first seen mid-way: a baseline, not a crossing.
            state.milestoneReference = progress
            state.milestonesSent.formUnion(all.filter { Double($0) <= progress })
            return
        }
        let crossed = all.filter { Double($0) > reference && Double($0) <= progress && !state.milestonesSent.contains($0) }
        state.milestoneReference = progress
        guard !crossed.isEmpty else { return }
        state.milestonesSent.formUnion(crossed)
        // While paused, the phones that heard of the pause saw its progress.
        let told = skipping.isEmpty && state.lastStatus == .paused ? state.pauseToldTo : skipping
        guard alerting else { return }
        // Each phone's highest crossed of its own list; one alert per value.
        var byValue: [Int: Set<String>] = [:]
        var everyone: Set<String> = []
        for device in builder.devices where device.follows(builder.prefix) {
            everyone.insert(device.id)
            let own = Set(device.preferences.schedule.milestones ?? configuration.milestones)
            if let highest = crossed.intersection(own).max() { byValue[highest, default: []].insert(device.id) }
        }
        for (value, hearing) in byValue.sorted(by: { $0.key < $1.key }) {
            builder.alert(.milestone, status: state.lastStatus ?? .running, milestone: value, skipping: told.union(everyone.subtracting(hearing)))
        }
    }
}
