/// "Ready to Remove": a print finished on a warm bed, told when it has cooled.
extension PushPlanner {
    /// "Ready to Remove" once after a finish, when the bed has cooled below the setting.
    func checkBedCooled(state: inout PrinterNotificationState, builder: inout PushBuilder) {
        guard let since = state.bedCoolingSince, state.lastStatus?.isActive != true, state.held == nil,
            let bed = builder.snapshot.bedTemp, bed < configuration.bedCooledBelow
        else { return }
        state.bedCoolingSince = nil
        builder.bedCooledAlert(temperature: bed, minutes: max(1, Int(((builder.now - since) / 60).rounded())))
    }
}
