/// Test pushes: one alert to one phone, asked for by hand, made like every
/// alert (the phone's language and token, the alert topic, priority 10) so
/// it goes the way they go: the outbox, the sender, the phone's history.
extension PushPlanner {
    /// The test alert for `device` (`TestPayload`), made at `now`; it
    /// changes no printer's memory. None for a device whose alert token
    /// cannot be used (a Live Activity alone, a token APNs refused).
    public func testPush(to device: Device, now: EpochTime) -> Plan {
        guard device.receivesAlerts, !device.isDisabled, !device.apnsToken.isEmpty else { return Plan() }
        var builder = PushBuilder(
            configuration: configuration, snapshot: PrinterSnapshot(prefix: TestPayload.thread), devices: [device], now: now)
        builder.testAlert(to: device)
        var plan = Plan()
        plan.add(builder)
        return plan
    }
}
