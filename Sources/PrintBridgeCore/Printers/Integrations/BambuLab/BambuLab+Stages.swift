/// ha-bambulab's stage (`sensor.<p>_current_stage`, pybambu's `const.py`
/// `CURRENT_STAGE_IDS`) as a reason: the stages that say why the printer
/// stopped (`paused_…`, `m400_pause`) each have a catalog text
/// (`stage.<value>`), in the phone's language.
extension BambuLab {
    /// The stage's reason in the catalog's language; a filament runout
    /// (`paused_filament_runout`) names its AMS slot or the external spool
    /// when an HMS error gives it.
    static func stageReason(_ snapshot: PrinterSnapshot, _ catalog: Catalog) -> String? {
        guard let stage = snapshot.stage?.lowercased(), stage.hasPrefix("paused_") || stage == "m400_pause",
            let text = catalog.text("stage." + stage)
        else { return nil }
        guard isRunout(snapshot), let location = runoutLocation(snapshot) else { return text }
        let slot: [String: CatalogArgument] = ["unit": .text(location.unit), "slot": .count(location.slot)]
        let place: String
        switch location.kind {
        case .external: place = catalog.text(.locationExternal)
        case .ams: place = catalog.text(.locationAMS, slot)
        case .amsLite: place = catalog.text(.locationAMSLite, slot)
        case .amsHT: place = catalog.text(.locationAMSHT, slot)
        }
        return catalog.text(.reasonWithLocation, ["reason": .text(text), "location": .text(place)])
    }

    /// A pause is explained once its stage says why (and, for a runout, an
    /// HMS error names the slot). An error text alone waits for the window,
    /// as the stage, which says it better, may follow.
    static func stageExplainsPause(_ snapshot: PrinterSnapshot) -> Bool {
        guard stageReason(snapshot, .english) != nil else { return false }
        return !isRunout(snapshot) || runoutLocation(snapshot) != nil
    }

    private static func isRunout(_ snapshot: PrinterSnapshot) -> Bool {
        snapshot.stage?.lowercased() == "paused_filament_runout"
    }

    private static func runoutLocation(_ snapshot: PrinterSnapshot) -> FilamentLocation? {
        snapshot.printerErrors?.lazy.compactMap { filamentLocation(ofCode: $0.code) }.first
    }
}
