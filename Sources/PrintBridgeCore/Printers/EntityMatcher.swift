/// What an entity is to PrintBridge: which printer, which field, read
/// through which integration's profile.
public struct EntityMatch: Hashable, Sendable {
    public var prefix: String
    public var field: PrinterField
    public var profile: PrinterProfile

    public init(prefix: String, field: PrinterField, profile: PrinterProfile = .default) {
        self.prefix = prefix
        self.field = field
        self.profile = profile
    }
}

/// A printer whose entities the user named in the settings file.
public struct MappedPrinter: Hashable, Sendable {
    /// The printer's prefix (its name in PrintBridge, the API and the app).
    public var prefix: String
    public var profile: PrinterProfile
    /// The entity that plays each part (none: the entry names only a camera).
    public var entities: [PrinterField: String]
    /// The camera or image entity that pictures the printer, whatever HA's
    /// registry says (`camera:`).
    public var camera: String?

    public init(prefix: String, profile: PrinterProfile, entities: [PrinterField: String], camera: String? = nil) {
        self.prefix = prefix
        self.profile = profile
        self.entities = entities
        self.camera = camera
    }
}

/// Decides which HA entities belong to printers, and through which profile.
///
/// In order: entities mapped in the settings file; entities HA's entity
/// registry gives to a profile's integration (by translation key, else by
/// the profile's suffix); a PrusaLink status entity recognised by its
/// options; then entity-id suffixes. A printer's prefix is the entity id
/// minus its domain and the field's suffix
/// (`sensor.x1c_00m09a350100123_print_status` → `x1c_00m09a350100123`); HA's
/// `_2` for a second entity of the same name stays with the prefix
/// (`sensor.octoprint_current_state_2` → `octoprint_2`). The suffix test
/// works on raw bytes so the replay and HA link can drop the ~98 % of
/// household events that are not about printers before parsing them.
public struct EntityMatcher: Sendable {
    public let profiles: [PrinterProfile]
    public let mapped: [MappedPrinter]

    private struct SuffixRule: Sendable {
        var bytes: [UInt8]
        var field: PrinterField?  // nil: an ignored look-alike
        var profile: Int
        /// Matches only beside a known status entity of its profile.
        var scoped: Bool
    }

    /// Longest first, so `_target_nozzle_temperature` wins over `_nozzle_temperature`.
    private let rules: [SuffixRule]
    private let fieldByTranslationKey: [[String: PrinterField]]
    let mappedMatches: [String: EntityMatch]
    private(set) var registryMatches: [String: EntityMatch] = [:]
    /// Status entities recognised by their options (PrusaLink's `sensor.<device>`).
    private(set) var learnedMatches: [String: EntityMatch] = [:]
    /// Printers whose status entity is known, by prefix: the profile's index.
    private(set) var knownPrinters: [String: Int] = [:]
    private var prefixByDevice: [String: String] = [:]
    /// Entities the registry gives to another integration whose ids happen
    /// to end like a printer field (a washer's `_remaining_time`).
    private var foreignLookAlikes: Set<String> = []
    /// Printers' button entities found in the registry (by device) and in
    /// the last snapshot (by name); `buttons` merges them.
    private(set) var registryButtons: PrinterButtons = [:]
    private(set) var namedButtons: PrinterButtons = [:]
    /// Printers' camera and image entities: the settings file's, the
    /// registry's (by device) and the last snapshot's (by name).
    let mappedCameras: PrinterCameras
    private(set) var registryCameras: PrinterCameras = [:]
    private(set) var namedCameras: PrinterCameras = [:]
    /// The camera and image ids a known printer's would have by its
    /// profile's names, each with its printer and rank (`noteCamera`).
    private(set) var cameraCandidates: [String: (prefix: String, rank: Int)] = [:]
    /// Counts changes to the cameras found by name, so the link knows to
    /// publish them again.
    public private(set) var camerasVersion = 0
    /// The integrations' own bus events, by HA event type.
    private let busEventsByType: [String: PrinterBusEvents]

    public init(profiles: [PrinterProfile] = PrinterProfile.builtIn, mapped: [MappedPrinter] = []) {
        self.profiles = profiles
        self.mapped = mapped
        var rules: [SuffixRule] = []
        for (index, profile) in profiles.enumerated() {
            // A suffix must name something: "" or "_" would claim every entity.
            for (field, suffixes) in profile.entities.suffixes {
                let scoped = profile.siblingsNeedStatus && field != .status
                for suffix in suffixes where suffix.utf8.count > 1 {
                    rules.append(Self.rule(suffix, field: field, profile: index, scoped: scoped))
                }
            }
            for suffix in profile.entities.ignoredSuffixes where suffix.utf8.count > 1 {
                rules.append(Self.rule(suffix, field: nil, profile: index, scoped: false))
            }
        }
        rules.sort {
            $0.bytes.count > $1.bytes.count
                || ($0.bytes.count == $1.bytes.count
                    && ($0.bytes.lexicographicallyPrecedes($1.bytes) || ($0.bytes == $1.bytes && $0.profile < $1.profile)))
        }
        self.rules = rules
        fieldByTranslationKey = profiles.map { profile in
            var byKey: [String: PrinterField] = [:]
            for (field, keys) in profile.entities.translationKeys {
                for key in keys { byKey[key] = field }
            }
            return byKey
        }
        var mappedMatches: [String: EntityMatch] = [:]
        for printer in mapped {
            for (field, entityID) in printer.entities {
                mappedMatches[entityID] = EntityMatch(prefix: printer.prefix, field: field, profile: printer.profile)
            }
        }
        self.mappedMatches = mappedMatches
        mappedCameras = Dictionary(mapped.compactMap { printer in printer.camera.map { (printer.prefix, [$0]) } }) { $1 }
        var busEventsByType: [String: PrinterBusEvents] = [:]
        for profile in profiles + mapped.map(\.profile) {
            if let bus = profile.busEvents, busEventsByType[bus.eventType] == nil { busEventsByType[bus.eventType] = bus }
        }
        self.busEventsByType = busEventsByType
        rebuildCameraCandidates()
    }

    /// The ids the known printers' cameras would have by their profiles'
    /// names (`camera.<printer>_camera`, `camera.<name>_camera_2`).
    private mutating func rebuildCameraCandidates() {
        cameraCandidates = [:]
        for (prefix, index) in knownPrinters {
            let (base, copy) = Self.splitCopyNumber(prefix)
            for (rank, camera) in profiles[index].cameras.enumerated() {
                for id in ["\(camera.domain).\(prefix)\(camera.suffix)", "\(camera.domain).\(base)\(camera.suffix)\(copy)"]
                where cameraCandidates[id] == nil {
                    cameraCandidates[id] = (prefix, rank)
                }
            }
        }
    }

    /// A camera or image entity that appeared after the last snapshot (HA
    /// still setting its integrations up after a restart, a camera added):
    /// named after a known printer as its profile names them, it pictures
    /// that printer from now on, in the profile's order. True when it is new.
    public mutating func noteCamera(entityID: String) -> Bool {
        guard !cameraCandidates.isEmpty, let (prefix, rank) = cameraCandidates[entityID] else { return false }
        var found = namedCameras[prefix] ?? []
        guard !found.contains(entityID) else { return false }
        found.append(entityID)
        let ranks = found.map { cameraCandidates[$0]?.rank ?? Int.max }
        namedCameras[prefix] = zip(found, ranks).sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
        camerasVersion += 1
        return true
    }

    /// One profile made of `map`, with the default profile's status table
    /// and readings (tests, and callers that only rename suffixes).
    public init(map: EntitySuffixMap) {
        var profile = PrinterProfile.default
        profile.name = "custom"
        profile.entities = map
        self.init(profiles: [profile])
    }

    private static func rule(_ suffix: String, field: PrinterField?, profile: Int, scoped: Bool) -> SuffixRule {
        SuffixRule(bytes: Array(suffix.utf8), field: field, profile: profile, scoped: scoped)
    }

    // MARK: Learning

    /// Learns from HA's entity registry. An entity of a profile's platform
    /// is that profile's by its translation key, else by the profile's own
    /// suffixes (integrations that name entities in English only, such as
    /// Moonraker, have no keys). Entities of one HA device share a printer
    /// prefix: the object id minus the field's own suffix where an entity
    /// still has its English id (a device-named status entity's whole id),
    /// else the longest common `_`-separated start of the ids of all that
    /// device's entities of the platform (or, for a lone entity, its id
    /// minus the last part).
    public mutating func applyRegistry(_ entries: [EntityRegistryEntry]) {
        var matched: [(entry: EntityRegistryEntry, field: PrinterField, profile: Int)] = []
        var groups: [String: [String]] = [:]
        for entry in entries {
            guard let profile = profileIndex(platform: entry.platform) else { continue }
            let group = Self.group(entry)
            let objectID = Self.objectID(entry.entityID)
            if entry.deviceID != nil { groups[group, default: []].append(objectID) }
            let field: PrinterField
            if let key = entry.translationKey, let keyed = fieldByTranslationKey[profile][key] {
                field = keyed
            } else if let (_, rule) = suffixRule(for: entry.entityID, profile: profile), let suffixed = rule.field {
                field = suffixed
            } else {
                continue
            }
            matched.append((entry, field, profile))
            if entry.deviceID == nil { groups[group] = [objectID] }
        }
        var prefixByGroup: [String: String] = [:]
        // The status entity names the printer first: HA numbers an entity id
        // ("_2", "_3") when it is created, and an integration may create a
        // sibling later (HA's OctoPrint makes its temperature sensors only
        // once the printer reports temperatures), so a sibling's number can
        // be another printer's.
        for (entry, field, profile) in matched.filter({ $0.field == .status }) + matched.filter({ $0.field != .status }) {
            let group = Self.group(entry)
            let objectID = Self.objectID(entry.entityID)
            if field == .status, profiles[profile].statusOptions != nil {
                prefixByGroup[group] = objectID  // the status entity is the device
                continue
            }
            let (base, copy) = Self.splitCopyNumber(objectID)
            for suffix in profiles[profile].entities.suffixes[field, default: []]
            where base.hasSuffix(suffix) && base.count > suffix.count {
                prefixByGroup[group] = prefixByGroup[group] ?? String(base.dropLast(suffix.count)) + copy
            }
        }
        for (group, objectIDs) in groups where prefixByGroup[group] == nil {
            prefixByGroup[group] = Self.sharedPrefix(objectIDs)
        }
        // A printer the registry named before and names no more (removed
        // from HA) is known no more, nor are its cameras and buttons by name.
        let registryPrinters = Set(registryMatches.values.filter { $0.field == .status }.map(\.prefix))
        registryMatches = [:]
        prefixByDevice = [:]
        foreignLookAlikes = []
        for entry in entries where profileIndex(platform: entry.platform) == nil && entry.platform != nil {
            if suffixMatch(entry.entityID) != nil { foreignLookAlikes.insert(entry.entityID) }
        }
        for (entry, field, profile) in matched {
            guard let prefix = prefixByGroup[Self.group(entry)], !prefix.isEmpty else { continue }
            registryMatches[entry.entityID] = EntityMatch(prefix: prefix, field: field, profile: profiles[profile])
            if field == .status { knownPrinters[prefix] = profile }
            if let device = entry.deviceID { prefixByDevice[device] = prefix }
        }
        let stillNamed = Set(registryMatches.values.filter { $0.field == .status }.map(\.prefix))
        for gone in registryPrinters.subtracting(stillNamed) {
            knownPrinters[gone] = nil
            namedCameras[gone] = nil
            namedButtons[gone] = nil
        }
        rebuildCameraCandidates()
        registryButtons = [:]
        for entry in entries where entry.entityID.hasPrefix("button.") {
            guard let profile = profileIndex(platform: entry.platform),
                let prefix = prefixByGroup[Self.group(entry)], !prefix.isEmpty
            else { continue }
            let (base, _) = Self.splitCopyNumber(Self.objectID(entry.entityID))
            for (action, suffix) in profiles[profile].actionButtons where base.hasSuffix("_" + suffix) {
                registryButtons[prefix, default: [:]][action] = entry.entityID
            }
        }
        learnCameras(from: entries, prefixByGroup: prefixByGroup)
    }

    /// The registry's camera and image entities on a printer's device: the
    /// profile's, in its order, then any other (a webcam named by its user).
    private mutating func learnCameras(from entries: [EntityRegistryEntry], prefixByGroup: [String: String]) {
        registryCameras = [:]
        camerasVersion += 1
        var ranked: [String: [(rank: Int, entityID: String)]] = [:]
        for entry in entries where entry.entityID.hasPrefix("camera.") || entry.entityID.hasPrefix("image.") {
            guard let profile = profileIndex(platform: entry.platform),
                let prefix = prefixByGroup[Self.group(entry)], !prefix.isEmpty
            else { continue }
            let (base, _) = Self.splitCopyNumber(Self.objectID(entry.entityID))
            let cameras = profiles[profile].cameras
            let rank = cameras.firstIndex { entry.entityID.hasPrefix($0.domain + ".") && base.hasSuffix($0.suffix) }
            ranked[prefix, default: []].append((rank ?? cameras.count, entry.entityID))
        }
        for (prefix, found) in ranked {
            registryCameras[prefix] = found.sorted { ($0.rank, $0.entityID) < ($1.rank, $1.entityID) }.map(\.entityID)
        }
    }

    /// The camera and image entities that picture the printer `prefix`,
    /// best first: the settings file's, else the registry's, else those
    /// named after the printer in the last snapshot.
    public func cameras(printer prefix: String) -> [String] {
        mappedCameras[prefix] ?? registryCameras[prefix] ?? namedCameras[prefix] ?? []
    }

    /// Every printer's cameras, as `cameras(printer:)` finds them.
    public var cameras: PrinterCameras {
        mappedCameras.merging(registryCameras.merging(namedCameras) { registry, _ in registry }) { mapped, _ in mapped }
    }

    /// The button entity that does `action` for the printer `prefix`, if HA
    /// has one: the registry's (the printer's own device), else the one
    /// named after the printer in the last snapshot.
    public func button(_ action: PrinterAction, printer prefix: String) -> String? {
        registryButtons[prefix]?[action] ?? namedButtons[prefix]?[action]
    }

    /// Every printer's buttons, as `button(_:printer:)` finds them.
    public var buttons: PrinterButtons {
        namedButtons.merging(registryButtons) { named, registry in named.merging(registry) { $1 } }
    }

    /// The snapshot's camera and image entities named after a known
    /// printer, in its profile's order (`camera.<printer>_camera`, or
    /// `camera.<name>_camera_2` for a printer HA numbered).
    private mutating func learnCameras(from states: [HAState]) {
        namedCameras = [:]
        camerasVersion += 1
        let ids = Set(states.lazy.map(\.entityID).filter { $0.hasPrefix("camera.") || $0.hasPrefix("image.") })
        guard !ids.isEmpty else { return }
        for (prefix, index) in knownPrinters {
            let (base, copy) = Self.splitCopyNumber(prefix)
            var found: [String] = []
            for camera in profiles[index].cameras {
                for id in ["\(camera.domain).\(prefix)\(camera.suffix)", "\(camera.domain).\(base)\(camera.suffix)\(copy)"]
                where ids.contains(id) && !found.contains(id) {
                    found.append(id)
                    break
                }
            }
            if !found.isEmpty { namedCameras[prefix] = found }
        }
    }

    /// The snapshot's button entities named after a known printer:
    /// `button.<printer>_<suffix>`, or `button.<name>_<suffix>_2` for a
    /// printer HA numbered (`<name>_2`).
    private mutating func learnButtons(from states: [HAState]) {
        namedButtons = [:]
        learnCameras(from: states)
        let ids = Set(states.lazy.map(\.entityID).filter { $0.hasPrefix("button.") })
        guard !ids.isEmpty else { return }
        for (prefix, index) in knownPrinters {
            for (action, candidates) in buttonCandidates(prefix: prefix, profile: profiles[index]) {
                if let id = candidates.first(where: ids.contains) { namedButtons[prefix, default: [:]][action] = id }
            }
        }
    }

    /// Learns the printers of a `get_states` snapshot before its entities are
    /// matched: status entities by suffix, and a device-named status entity
    /// (PrusaLink's) by its options, so their siblings match wherever they
    /// stand in the list.
    public mutating func learn(from states: [HAState]) {
        for state in states {
            if let match = match(entityID: state.entityID) {
                noteStatus(match)
                continue
            }
            guard state.entityID.hasPrefix("sensor."), let options = state.attributes["options"]?.arrayValue else { continue }
            let texts = Set(options.compactMap(\.stringValue))
            guard let index = profiles.firstIndex(where: { $0.statusOptions == texts }) else { continue }
            let prefix = Self.objectID(state.entityID)
            guard !prefix.isEmpty, registryMatches[state.entityID] == nil, !foreignLookAlikes.contains(state.entityID) else { continue }
            learnedMatches[state.entityID] = EntityMatch(prefix: prefix, field: .status, profile: profiles[index])
            knownPrinters[prefix] = index
        }
        rebuildCameraCandidates()
        learnButtons(from: states)
    }

    /// Records a printer whose status entity was just seen, so its siblings'
    /// common suffixes match from now on.
    public mutating func noteStatus(_ match: EntityMatch) {
        guard match.field == .status, knownPrinters[match.prefix] == nil,
            let index = profiles.firstIndex(of: match.profile)
        else { return }
        knownPrinters[match.prefix] = index
        // Its cameras' ids join the filter's look-up (a new printer is rare).
        rebuildCameraCandidates()
    }

    private func profileIndex(platform: String?) -> Int? {
        guard let platform else { return nil }
        return profiles.firstIndex { $0.entities.platforms.contains(platform) }
    }

    /// Number of entities matched through the registry.
    public var registryMatchCount: Int { registryMatches.count }

    /// The printer an HA device id belongs to (from the registry), for an
    /// integration's bus events, which name the device rather than an entity.
    public func printer(deviceID: String) -> String? { prefixByDevice[deviceID] }

    /// The bus events of this type that an integration matched here fires.
    public func busEvents(ofType type: String) -> PrinterBusEvents? { busEventsByType[type] }

    /// The HA event types the integrations matched here (built-in and
    /// mapped printers') fire, each once, sorted: the session subscribes to them.
    /// With them `printbridge_notify`, which automations fire (issue 53).
    public var busEventTypes: [String] { Set(busEventsByType.keys).union([NotifyRequest.eventType]).sorted() }

    /// The profile of each printer whose status entity is known.
    public var printerProfiles: [String: PrinterProfile] {
        var result = knownPrinters.mapValues { profiles[$0] }
        for printer in mapped { result[printer.prefix] = printer.profile }
        return result
    }

    private static func group(_ entry: EntityRegistryEntry) -> String {
        entry.deviceID ?? "entity:" + entry.entityID
    }

    private static func objectID(_ entityID: String) -> String {
        guard let dot = entityID.firstIndex(of: ".") else { return entityID }
        return String(entityID[entityID.index(after: dot)...])
    }

    /// HA's number for a second entity of one name (`_2`…`_99`), split off.
    static func splitCopyNumber(_ objectID: String) -> (base: String, copy: String) {
        let digits = objectID.utf8.reversed().prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
        guard (1...2).contains(digits), objectID.utf8.count > digits + 1 else { return (objectID, "") }
        let cut = objectID.utf8.index(objectID.utf8.endIndex, offsetBy: -(digits + 1))
        guard objectID.utf8[cut] == UInt8(ascii: "_") else { return (objectID, "") }
        return (String(objectID[..<cut]), String(objectID[cut...]))
    }

    private static func sharedPrefix(_ objectIDs: [String]) -> String {
        let parts = objectIDs.map { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard let first = parts.first else { return "" }
        if parts.count == 1 {
            return first.count > 1 ? first.dropLast().joined(separator: "_") : String(first[0])
        }
        var common = first.count
        for other in parts.dropFirst() {
            var n = 0
            while n < min(common, other.count), other[n] == first[n] { n += 1 }
            common = n
        }
        // Keep at least one distinguishing part out of the prefix.
        let shortest = parts.map(\.count).min() ?? 0
        common = min(common, max(0, shortest - 1))
        return first.prefix(common).joined(separator: "_")
    }

    // MARK: Matching

    /// The printer and field an entity feeds, or nil when it is not a printer entity.
    public func match(entityID: String) -> EntityMatch? {
        if !mappedMatches.isEmpty, let match = mappedMatches[entityID] { return match }
        if !registryMatches.isEmpty, let match = registryMatches[entityID] { return match }
        if !learnedMatches.isEmpty, let match = learnedMatches[entityID] { return match }
        guard let match = suffixMatch(entityID) else { return nil }
        return foreignLookAlikes.contains(entityID) ? nil : match
    }

    private func suffixMatch(_ entityID: String) -> EntityMatch? {
        var id = entityID
        return id.withUTF8 { utf8 in
            let buffer = UnsafeRawBufferPointer(utf8)
            guard let found = suffixRule(for: buffer, profile: nil), let field = found.rule.field else { return nil }
            return EntityMatch(prefix: found.prefix(buffer), field: field, profile: profiles[found.rule.profile])
        }
    }

    private func suffixRule(for entityID: String, profile: Int) -> (String, SuffixRule)? {
        var id = entityID
        return id.withUTF8 { utf8 in
            let buffer = UnsafeRawBufferPointer(utf8)
            guard let found = suffixRule(for: buffer, profile: profile) else { return nil }
            return (found.prefix(buffer), found.rule)
        }
    }

    /// Where a suffix rule matched: the object id's start, where the suffix
    /// starts, and HA's copy number after it (`_2`), if any.
    private struct Found {
        var rule: SuffixRule
        var start: Int
        var suffixStart: Int
        var copyStart: Int

        func prefix(_ buffer: UnsafeRawBufferPointer) -> String {
            var bytes = Array(buffer[start..<suffixStart])
            bytes += buffer[copyStart..<buffer.count]
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The longest rule (of `profile`, or any) whose suffix ends the entity's
    /// object id, or ends it before HA's copy number, with a non-empty prefix
    /// left before it. An ignored look-alike ends the search; a scoped rule
    /// counts only for a known printer of its profile.
    private func suffixRule(for buffer: UnsafeRawBufferPointer, profile: Int?) -> Found? {
        let count = buffer.count
        var dot = 0
        while dot < count, buffer[dot] != UInt8(ascii: ".") { dot += 1 }
        guard dot < count else { return nil }
        let start = dot + 1
        if let found = suffixRule(for: buffer, start: start, end: count, profile: profile) { return found }
        // `…_2`: HA numbered a second entity of the same name.
        var digits = 0
        while digits < 3, count - digits - 1 > start,
            buffer[count - digits - 1] >= UInt8(ascii: "0"), buffer[count - digits - 1] <= UInt8(ascii: "9")
        {
            digits += 1
        }
        guard (1...2).contains(digits), buffer[count - digits - 1] == UInt8(ascii: "_") else { return nil }
        return suffixRule(for: buffer, start: start, end: count - digits - 1, profile: profile)
    }

    private func suffixRule(for buffer: UnsafeRawBufferPointer, start: Int, end: Int, profile: Int?) -> Found? {
        let objectLength = end - start
        guard end > start else { return nil }
        for rule in rules {
            if let profile, rule.profile != profile { continue }
            let length = rule.bytes.count
            guard objectLength > length,
                rule.bytes.withUnsafeBytes({ suffix in suffix.elementsEqual(buffer[(end - length)..<end]) })
            else { continue }
            let found = Found(rule: rule, start: start, suffixStart: end - length, copyStart: end)
            if rule.scoped, profile == nil {
                // `_progress` is a printer's only beside its profile's status entity.
                guard knownPrinters[found.prefix(buffer)] == rule.profile else { continue }
            }
            return found
        }
        return nil
    }
}
