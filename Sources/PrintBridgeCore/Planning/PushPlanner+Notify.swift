/// Alerts from Home Assistant's automations (issue 53, `NotifyRequest`):
/// to the phones that follow the printer, at most `notifyAllowance` a
/// printer in `notifyWindow` (an automation stuck in a loop must not
/// flood the phones); what is over it, or names no printer the agent knows,
/// is dropped and said in the log.
extension PushPlanner {
    public static let notifyAllowance = 5
    public static let notifyWindow: Double = 600

    public mutating func notify(_ request: NotifyRequest, printers snapshots: PrinterCache, devices: [Device], now: EpochTime) -> Plan {
        var plan = Plan()
        // The printer by its prefix, else by the name it has here.
        let prefix = snapshots[request.printer] != nil ? request.printer
            : snapshots.printers.keys.sorted().first { key in
                configuration.printerNames[key] == request.printer || snapshots[key]?.displayName == request.printer
            }
        guard let prefix, let snapshot = snapshots[prefix] else {
            plan.failures.append("printbridge_notify names no printer the agent knows: \(request.printer)")
            return plan
        }
        var sent = (notifySent[prefix] ?? []).filter { now - $0 < Self.notifyWindow }
        guard sent.count < Self.notifyAllowance else {
            plan.failures.append(
                "printbridge_notify for \(prefix) dropped: \(Self.notifyAllowance) in the last \(Int(Self.notifyWindow / 60)) minutes already")
            return plan
        }
        var builder = PushBuilder(configuration: configuration, snapshot: snapshot, devices: devices, now: now)
        builder.notifyAlert(request, at: now)
        plan.add(builder)
        sent.append(now)
        notifySent[prefix] = sent
        keepHeld(&plan)
        return plan
    }
}
