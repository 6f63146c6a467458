/// The last known state of every printer, fed entity by entity.
///
/// It only ever records usable values: `unavailable`, `unknown`, `offline`,
/// empty and malformed states are dropped, so an HA restart (every entity
/// unavailable, then back) leaves the cache as it was.
public struct PrinterCache: Sendable {
    public private(set) var printers: [String: PrinterSnapshot] = [:]

    public init() {}

    public subscript(prefix: String) -> PrinterSnapshot? { printers[prefix] }

    /// Applies one entity's new state. Returns the change when a known value
    /// actually changed, nil when the update carried nothing new.
    public mutating func apply(_ match: EntityMatch, state: HAState, at time: EpochTime? = nil) -> PrinterChange? {
        var previous = printers[match.prefix] ?? PrinterSnapshot(prefix: match.prefix)
        if match.field == .status, previous.profile != match.profile {
            // The status entity decides how the printer's states read.
            previous.profile = match.profile
            printers[match.prefix] = previous
        }
        if match.field == .status, EntityValue.carriesNoInformation(state.state) {
            // The printer went quiet: nothing known changes, but the planner
            // hears when (a print whose printer stays away is told of).
            guard previous.silentSince == nil else { return nil }
            var current = previous
            current.silentSince = time ?? state.lastUpdated ?? EpochTime(seconds: 0)
            printers[match.prefix] = current
            return PrinterChange(field: .status, previous: previous, current: current)
        }
        var current = previous
        Self.read(state, into: &current, field: match.field, profile: match.profile)
        guard current != previous else { return nil }
        if current.rawStatus == previous.rawStatus, previous.silentSince != nil, current.silentSince == nil {
            var known = previous
            known.silentSince = nil
            if current == known {
                // Back with the status it had: only the silence ended, and
                // HA's new `last_changed` is no change of the print's.
                printers[match.prefix] = current
                return PrinterChange(field: .status, previous: previous, current: current)
            }
        }
        current.lastUpdated = time ?? state.lastUpdated ?? previous.lastUpdated
        let changed = state.lastChanged ?? time
        if let changed { current.changedAt[match.field] = changed }
        if let finish = current.finishAt, let now = time ?? state.lastUpdated {
            // A finish time says how long is left at every change of the printer.
            let remaining = max(0, Int((finish - now).rounded()))
            if remaining != current.remainingSeconds {
                current.remainingSeconds = remaining
                current.changedAt[.remainingTime] = current.changedAt[.finishTime]
            }
        }
        if let status = current.status, status != previous.status, status.isActive || status == .preparing,
            previous.status.map({ $0.isActive || $0 == .preparing }) != true
        {
            current.printBeganAt = changed
        }
        printers[match.prefix] = current
        return PrinterChange(field: match.field, previous: previous, current: current)
    }

    /// An integration's bus event about a printer: a cancel counts as the
    /// printer's integration's cancel code (the integration fires it when
    /// the print error becomes that code), whichever of it, the status and
    /// the error entity arrives first.
    public mutating func apply(_ event: PrinterBusEvent, prefix: String, at time: EpochTime? = nil) -> PrinterChange? {
        let previous = printers[prefix] ?? PrinterSnapshot(prefix: prefix)
        guard event == .cancelled, let cancelCode = previous.profile.cancelCode else { return nil }
        var current = previous
        current.errorCode = cancelCode
        guard current != previous else { return nil }
        if let time { current.lastUpdated = time; current.changedAt[.error] = time }
        printers[prefix] = current
        return PrinterChange(field: .error, previous: previous, current: current)
    }

    /// Reads one entity's state into the snapshot: plain values here, the
    /// print error, the printer's errors and the spools as the entity's
    /// integration (`profile`) reads them.
    private static func read(
        _ state: HAState, into snapshot: inout PrinterSnapshot, field: PrinterField, profile: PrinterProfile
    ) {
        let raw = state.state
        if field == .error {
            switch profile.readPrintError(state) {
            case .error(let code, let text):
                snapshot.errorCode = code
                snapshot.errorText = text
            case .cleared:
                snapshot.errorCode = nil
                snapshot.errorText = nil
            case .noInformation:
                break
            }
            return
        }
        if field == .printerErrors {
            if let errors = profile.readPrinterErrors(state) { snapshot.printerErrors = errors }
            return
        }
        if field == .activeSpool {
            // "none" with no attributes: no spool feeds the printer now; the
            // print keeps the spools it was seen to use (the planner's memory).
            snapshot.material.activeSpool = profile.readActiveSpool(state)
            return
        }
        guard !EntityValue.carriesNoInformation(raw) else { return }
        if field == .materialWeight || field == .materialLength {
            // A 0 is no reading (not read yet, or not printing): the print keeps its last.
            guard let amount = MaterialReadings.amount(.string(raw)) else { return }
            if field == .materialWeight {
                snapshot.material.grams = amount
                snapshot.material.gramsBySpool = profile.spoolAmounts(state.attributes)
            } else {
                snapshot.material.meters = amount
                snapshot.material.metersBySpool = profile.spoolAmounts(state.attributes)
            }
            return
        }
        if snapshot.profile.zeroWhenNotPrinting, snapshot.status != .running, EntityValue.number(raw) == 0,
            [.progress, .currentLayer, .totalLayers, .remainingTime].contains(field)
        {
            return  // a placeholder while not printing, not a reading
        }
        if field != .status, let name = state.friendlyName { snapshot.siblingEntityNames[field] = name }
        switch field {
        case .status:
            guard snapshot.profile.status(raw: raw) != nil else { return }
            snapshot.rawStatus = raw
            snapshot.silentSince = nil
            if let name = state.friendlyName { snapshot.statusEntityName = name }
        case .progress:
            if let value = EntityValue.progress(raw) { snapshot.progress = value }
        case .currentLayer:
            if let value = EntityValue.count(raw) { snapshot.currentLayer = value }
        case .totalLayers:
            if let value = EntityValue.count(raw) { snapshot.totalLayers = value }
        case .remainingTime:
            if let value = EntityValue.remainingSeconds(raw, unit: state.unitOfMeasurement) {
                snapshot.remainingSeconds = value
            }
        case .finishTime:
            if let value = ISO8601.parse(String(raw.trimmingWhitespace)) { snapshot.finishAt = value }
        case .nozzleTemp:
            if let value = EntityValue.temperature(raw) { snapshot.nozzleTemp = value }
        case .bedTemp:
            if let value = EntityValue.temperature(raw) { snapshot.bedTemp = value }
        case .taskName: snapshot.taskName = String(raw.trimmingWhitespace)
        case .subtaskName: snapshot.subtaskName = String(raw.trimmingWhitespace)
        case .gcodeFilename: snapshot.gcodeFilename = String(raw.trimmingWhitespace)
        case .stage: snapshot.stage = String(raw.trimmingWhitespace)
        case .error, .printerErrors, .materialWeight, .materialLength, .activeSpool: break
        }
    }
}
