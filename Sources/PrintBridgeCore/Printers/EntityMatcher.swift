/// What an entity is to PrintBridge: which printer, which field.
public struct EntityMatch: Hashable, Sendable {
    public var prefix: String
    public var field: PrinterField

    public init(prefix: String, field: PrinterField) {
        self.prefix = prefix
        self.field = field
    }
}

/// Decides which HA entities belong to printers.
///
/// A printer's prefix is the entity id minus its domain and the field's
/// suffix (`sensor.x1c_00m09a350100123_print_status` → `x1c_00m09a350100123`).
/// Entities the registry names by translation key are matched by that key
/// first. The suffix test works on raw bytes so the replay and HA link can
/// drop the ~98 % of household events that are not about printers before
/// parsing them.
public struct EntityMatcher: Sendable {
    public let map: EntitySuffixMap

    private struct SuffixRule: Sendable {
        var bytes: [UInt8]
        /// The suffix's last (up to) 8 bytes, little-endian, for a one-compare reject.
        var tail: UInt64
        var tailMask: UInt64
        var field: PrinterField?  // nil: an ignored look-alike
    }

    /// Longest first, so `_target_nozzle_temperature` wins over `_nozzle_temperature`.
    private let rules: [SuffixRule]
    private let fieldByTranslationKey: [String: PrinterField]
    private var registryMatches: [String: EntityMatch] = [:]
    private var prefixByDevice: [String: String] = [:]
    /// Entities the registry gives to another integration whose ids happen
    /// to end like a printer field (a washer's `_remaining_time`).
    private var foreignLookAlikes: Set<String> = []

    public init(map: EntitySuffixMap = .haBambulab) {
        self.map = map
        var rules: [SuffixRule] = []
        // A suffix must name something: "" or "_" would claim every entity.
        for (field, suffixes) in map.suffixes {
            for suffix in suffixes where suffix.utf8.count > 1 { rules.append(Self.rule(suffix, field: field)) }
        }
        for suffix in map.ignoredSuffixes where suffix.utf8.count > 1 { rules.append(Self.rule(suffix, field: nil)) }
        rules.sort { $0.bytes.count > $1.bytes.count || ($0.bytes.count == $1.bytes.count && $0.bytes.lexicographicallyPrecedes($1.bytes)) }
        self.rules = rules
        var byKey: [String: PrinterField] = [:]
        for (field, keys) in map.translationKeys {
            for key in keys { byKey[key] = field }
        }
        fieldByTranslationKey = byKey
    }

    private static func rule(_ suffix: String, field: PrinterField?) -> SuffixRule {
        let bytes = Array(suffix.utf8)
        let (tail, mask) = tailWord(bytes.withUnsafeBytes { $0 }, count: bytes.count)
        return SuffixRule(bytes: bytes, tail: tail, tailMask: mask, field: field)
    }

    /// The last min(8, count) bytes ending at `count`, the very last byte in the
    /// lowest bits (so a shorter suffix's word lines up with any longer id's),
    /// and the mask covering them.
    private static func tailWord(_ buffer: UnsafeRawBufferPointer, count: Int) -> (UInt64, UInt64) {
        let n = min(8, count)
        var word: UInt64 = 0
        for i in 0..<n {
            word |= UInt64(buffer[count - 1 - i]) << (8 * UInt64(i))
        }
        let mask: UInt64 = n == 8 ? ~0 : (1 << (8 * UInt64(n))) - 1
        return (word, mask)
    }

    /// Learns translation keys from HA's entity registry (entities of the
    /// map's platforms only). Entities of one HA device share a printer
    /// prefix: the object id minus the field's own suffix where an entity
    /// still has its English id, else the longest common `_`-separated start
    /// of the ids of all that device's entities of the platform (or, for a
    /// lone entity, its id minus the last part).
    public mutating func applyRegistry(_ entries: [EntityRegistryEntry]) {
        let ownEntries = entries.filter { entry in
            map.platforms.isEmpty || entry.platform.map(map.platforms.contains) == true
        }
        var matched: [(entry: EntityRegistryEntry, field: PrinterField)] = []
        var groups: [String: [String]] = [:]
        for entry in ownEntries {
            let group = entry.deviceID ?? "entity:" + entry.entityID
            if entry.deviceID != nil { groups[group, default: []].append(Self.objectID(entry.entityID)) }
            guard let key = entry.translationKey, let field = fieldByTranslationKey[key] else { continue }
            matched.append((entry, field))
            if entry.deviceID == nil { groups[group] = [Self.objectID(entry.entityID)] }
        }
        var prefixByGroup: [String: String] = [:]
        for (entry, field) in matched {
            let group = entry.deviceID ?? "entity:" + entry.entityID
            let objectID = Self.objectID(entry.entityID)
            for suffix in map.suffixes[field, default: []] where objectID.hasSuffix(suffix) && objectID.count > suffix.count {
                prefixByGroup[group] = prefixByGroup[group] ?? String(objectID.dropLast(suffix.count))
            }
        }
        for (group, objectIDs) in groups where prefixByGroup[group] == nil {
            prefixByGroup[group] = Self.sharedPrefix(objectIDs)
        }
        registryMatches = [:]
        prefixByDevice = [:]
        foreignLookAlikes = []
        if !map.platforms.isEmpty {
            for entry in entries where entry.platform.map(map.platforms.contains) == false {
                if suffixMatch(entry.entityID) != nil { foreignLookAlikes.insert(entry.entityID) }
            }
        }
        for (entry, field) in matched {
            let group = entry.deviceID ?? "entity:" + entry.entityID
            guard let prefix = prefixByGroup[group], !prefix.isEmpty else { continue }
            registryMatches[entry.entityID] = EntityMatch(prefix: prefix, field: field)
            if let device = entry.deviceID { prefixByDevice[device] = prefix }
        }
    }

    /// Number of entities matched through the registry.
    public var registryMatchCount: Int { registryMatches.count }

    /// The printer an HA device id belongs to (from the registry), for an
    /// integration's bus events, which name the device rather than an entity.
    public func printer(deviceID: String) -> String? { prefixByDevice[deviceID] }

    private static func objectID(_ entityID: String) -> String {
        guard let dot = entityID.firstIndex(of: ".") else { return entityID }
        return String(entityID[entityID.index(after: dot)...])
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

    /// The printer and field an entity feeds, or nil when it is not a printer entity.
    public func match(entityID: String) -> EntityMatch? {
        if !registryMatches.isEmpty, let match = registryMatches[entityID] { return match }
        guard let match = suffixMatch(entityID) else { return nil }
        return foreignLookAlikes.contains(entityID) ? nil : match
    }

    private func suffixMatch(_ entityID: String) -> EntityMatch? {
        var id = entityID
        return id.withUTF8 { utf8 in
            let buffer = UnsafeRawBufferPointer(utf8)
            guard let (start, rule) = suffixRule(for: buffer), let field = rule.field else { return nil }
            let prefixBytes = UnsafeRawBufferPointer(rebasing: buffer[start..<(buffer.count - rule.bytes.count)])
            return EntityMatch(prefix: String(decoding: prefixBytes, as: UTF8.self), field: field)
        }
    }

    /// Whether an entity id (raw UTF-8) may belong to a printer. Cheap: no allocation
    /// unless registry matches exist.
    public func isRelevant(entityID buffer: UnsafeRawBufferPointer) -> Bool {
        if !registryMatches.isEmpty,
            registryMatches[String(decoding: buffer, as: UTF8.self)] != nil
        {
            return true
        }
        guard let (_, rule) = suffixRule(for: buffer), rule.field != nil else { return false }
        return foreignLookAlikes.isEmpty || !foreignLookAlikes.contains(String(decoding: buffer, as: UTF8.self))
    }

    /// The longest rule whose suffix ends the entity's object id with a non-empty
    /// prefix left before it, and where that object id starts.
    private func suffixRule(for buffer: UnsafeRawBufferPointer) -> (Int, SuffixRule)? {
        let count = buffer.count
        var dot = 0
        while dot < count, buffer[dot] != UInt8(ascii: ".") { dot += 1 }
        guard dot < count else { return nil }
        let start = dot + 1
        let objectLength = count - start
        let (tail, _) = Self.tailWord(buffer, count: count)
        for rule in rules {
            let length = rule.bytes.count
            guard objectLength > length, tail & rule.tailMask == rule.tail else { continue }
            if length > 8 {
                var equal = true
                rule.bytes.withUnsafeBytes { suffix in
                    var i = 0
                    let base = count - length
                    while i < length - 8 {
                        if buffer[base + i] != suffix[i] { equal = false; return }
                        i += 1
                    }
                }
                guard equal else { continue }
            }
            return (start, rule)
        }
        return nil
    }
}
