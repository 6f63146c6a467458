/// ha-bambulab's spools and the material a print uses, as its sensors show
/// them: `definitions.py` ("Print weight", "Print length", "Active tray")
/// and pybambu's `models.py` (`PrintJob.get_print_weights`,
/// `get_print_lengths`, `AMSList.active_tray`, and the print's file read by
/// `_async_download_task_data_from_printer_worker`). pybambu writes a
/// print's weight and length 0 until it has read the print's file
/// (`print_weight = 0`, `_ams_print_weights = [0.0] * 136`): a 0 is no
/// reading, as `MaterialReadings.amount` takes every integration's.
extension BambuLab {
    /// The amounts per spool in "Print weight"'s and "Print length"'s
    /// attributes: every attribute named after a spool ("AMS <n> Tray <m>",
    /// "External Spool", "External Spool 2"), as `get_print_weights` and
    /// `get_print_lengths` write them (the trays of the first four AMS,
    /// 1-based; an external spool's amount is the print's total).
    static func spoolAmounts(_ attributes: [String: JSONValue]) -> [String: Double] {
        var amounts: [String: Double] = [:]
        for (name, value) in attributes where isSpoolName(name) {
            if let amount = MaterialReadings.amount(value) { amounts[name] = amount }
        }
        return amounts
    }

    static func isSpoolName(_ name: String) -> Bool {
        if name == "External Spool" || name == "External Spool 2" { return true }
        let words = name.split(separator: " ")
        return words.count == 4 && words[0] == "AMS" && words[2] == "Tray" && Int(words[1]) != nil
            && Int(words[3]) != nil
    }

    /// The spool "Active tray" names, with its `type` and `color`
    /// (`f"#{color}"`: "#" alone when the tray has none). Since v2.1 it says
    /// which spool in `ams_index` (0-based; 255 and 254 the external spools,
    /// `AMSList.active_tray`) and `tray_index` (0-based), named here as the
    /// print weights name it ("AMS 1 Tray 2"); before (v2.0.46) it does
    /// not, and the spool's name is "". Nil when no spool is active (state
    /// "none" with no attributes, or unavailable: no type or colour).
    static func activeSpool(_ state: HAState) -> Spool? {
        let attributes = state.attributes
        let material = Material(
            type: Material.reading(attributes["type"]?.stringValue),
            color: Material.color(attributes["color"]?.stringValue))
        guard material.type != nil || material.color != nil else { return nil }
        var name = ""
        switch attributes["ams_index"]?.intValue {
        case 255: name = "External Spool"
        case 254: name = "External Spool 2"
        case let ams? where (0..<128).contains(ams):
            if let tray = attributes["tray_index"]?.intValue, tray >= 0 { name = "AMS \(ams + 1) Tray \(tray + 1)" }
        default: break
        }
        return Spool(name: name, material: material)
    }

    /// How much older than the print's file a material reading may be and
    /// still be this print's.
    static let materialLagSeconds = 60.0

    /// The material readings that are an earlier print's: pybambu reads the
    /// weight and length from the print's file, so they are the same for a
    /// print of the same file and stay; but a reading that last changed
    /// well (over a minute) before the file names did was not read from
    /// the new file (pybambu could not read it; it writes the file name and
    /// the amounts in one pass when it can).
    static func materialOfEarlierPrint(_ snapshot: PrinterSnapshot) -> [PrinterField] {
        let fileFields: [PrinterField] = [.taskName, .subtaskName, .gcodeFilename]
        guard let file = fileFields.compactMap({ snapshot.changedAt[$0] }).max() else { return [] }
        return [PrinterField.materialWeight, .materialLength].filter { field in
            snapshot.changedAt[field].map { file - $0 > materialLagSeconds } ?? false
        }
    }
}
