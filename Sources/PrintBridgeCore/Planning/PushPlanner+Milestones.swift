/// Progress milestones: the highest crossed since the last reading of a
/// print, once per print.
extension PushPlanner {
    /// Sends the highest milestone crossed since the last reading of this print, once.
    func checkMilestones(
        state: inout PrinterNotificationState, builder: inout PushBuilder, alerting: Bool, skipping: Set<String> = []
    ) {
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
        // While paused, the phones that heard of the pause saw its progress.
        let told = skipping.isEmpty && state.lastStatus == .paused ? state.pauseToldTo : skipping
        if alerting { builder.alert(.milestone, status: state.lastStatus ?? .running, milestone: highest, skipping: told) }
    }
}
