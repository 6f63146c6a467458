extension EntityMatcher {
    /// The entities PrintBridge asks HA for (`subscribe_entities`'
    /// `entity_ids`), sorted: every entity the settings file, the registry
    /// or a snapshot gave a printer, and the printers' cameras and buttons,
    /// those found and those only named after a known printer as its
    /// profile names them (one that does not exist yet costs HA a set
    /// lookup, and arrives as added when it appears).
    public var watchedEntityIDs: [String] {
        var ids = Set(mappedMatches.keys)
        ids.formUnion(registryMatches.keys)
        ids.formUnion(learnedMatches.keys)
        ids.formUnion(cameraCandidates.keys)
        for cameras in [mappedCameras, registryCameras, namedCameras] { ids.formUnion(cameras.values.joined()) }
        for buttons in [registryButtons, namedButtons] { ids.formUnion(buttons.values.flatMap(\.values)) }
        for (prefix, index) in knownPrinters {
            ids.formUnion(buttonCandidates(prefix: prefix, profile: profiles[index]).values.joined())
        }
        return ids.sorted()
    }

    /// The ids a printer's action buttons would have by its profile's
    /// names: `button.<printer>_<suffix>`, or `button.<name>_<suffix>_2`
    /// for a printer HA numbered (`<name>_2`), in that order.
    func buttonCandidates(prefix: String, profile: PrinterProfile) -> [PrinterAction: [String]] {
        let (base, copy) = Self.splitCopyNumber(prefix)
        var candidates: [PrinterAction: [String]] = [:]
        for (action, suffix) in profile.actionButtons {
            let named = "button.\(prefix)_\(suffix)", numbered = "button.\(base)_\(suffix)\(copy)"
            candidates[action] = named == numbered ? [named] : [named, numbered]
        }
        return candidates
    }
}
