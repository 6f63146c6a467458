/// The settings file's `printers:` block: printers whose entities the user
/// names, for an integration PrintBridge has no profile for or entities
/// renamed beyond recognition.
///
/// ```yaml
/// printers:
///   ender3:                          # the printer's prefix
///     profile: octoprint             # optional: whose status words it speaks
///     status: sensor.ender3_state
///     progress: sensor.ender3_progress
///     file_name: sensor.ender3_file
///     camera: camera.garage          # optional: the picture in its alerts
///     states:                        # optional: status texts and what they mean
///       "Printing": running
///       "Done": complete
///   x1c_00m09a350100123:             # a printer found on its own:
///     camera: camera.workshop        # only its camera is named
/// ```
///
/// What the keys and values mean lives here; reading them from YAML (the
/// block's shape, and where each mistake is) is SettingsYAML's
/// `PrinterMap+YAML.swift`, so that the core needs no YAML library.
public enum PrinterMap {
    /// The parts an entity can play, as the settings file names them.
    public static let roles: [(name: String, field: PrinterField)] = [
        ("status", .status), ("progress", .progress), ("file_name", .taskName),
        ("remaining_time", .remainingTime), ("finish_time", .finishTime),
        ("current_layer", .currentLayer), ("total_layers", .totalLayers),
        ("nozzle_temperature", .nozzleTemp), ("bed_temperature", .bedTemp),
        // The print's material, for its statistics: grams, meters (an
        // OctoPrint plugin's or a template sensor's).
        ("filament_weight", .materialWeight), ("filament_length", .materialLength),
    ]

    /// The words a state may map to; `none` means "no information".
    public static let statusWords: [String: PrintStatus?] = [
        "idle": .idle, "preparing": .preparing, "running": .running, "paused": .paused,
        "complete": .complete, "failed": .failed, "cancelled": .cancelled, "none": nil,
    ]

    /// Every key a printer's entry may hold.
    public static let keys: [String] = ["profile", "states", "camera"] + roles.map(\.name)

    /// `domain.object_id` as HA writes entity ids.
    public static func isEntityID(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2
            && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" } }
    }
}

extension PrinterMap {
    /// One printer's entry, given key by key as the file holds them.
    public struct Entry: Sendable {
        public let prefix: String
        private var base = PrinterProfile.default
        private var baseNamed = false
        private var entities: [PrinterField: String] = [:]
        private var states: [String: PrintStatus?] = [:]
        private var camera: String?

        public init(prefix: String) throws(Problem) {
            guard !prefix.isEmpty, prefix.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                throw .notAPrinterName(prefix)
            }
            self.prefix = prefix
        }

        /// `profile`, `camera` or an entity's part. `owners` holds the
        /// entities every printer's entry has named so far (entity id to
        /// "ender3's status"): none plays two parts.
        public mutating func set(_ key: String, to value: String, owners: inout [String: String]) throws(Problem) {
            switch key {
            case "profile":
                guard let named = PrinterProfile.named(value) else { throw .unknownProfile(value) }
                base = named
                baseNamed = true
            case "camera":
                guard PrinterMap.isEntityID(value), value.hasPrefix("camera.") || value.hasPrefix("image.") else {
                    throw .notACamera(prefix: prefix)
                }
                guard camera == nil else { throw .setTwice(key) }
                camera = value
            default:
                guard let role = PrinterMap.roles.first(where: { $0.name == key }) else { throw .unknownKey(key) }
                guard PrinterMap.isEntityID(value) else { throw .notAnEntity(key: key, prefix: prefix) }
                guard entities[role.field] == nil else { throw .setTwice(key) }
                if let other = owners[value] { throw .alreadyMapped(entity: value, as: other) }
                owners[value] = "\(prefix)'s \(key)"
                entities[role.field] = value
            }
        }

        /// One of `states:`: a status text and the word for what it means.
        public mutating func map(state text: String, to word: String) throws(Problem) {
            guard let status = PrinterMap.statusWords[word.lowercased()] else { throw .unknownStatusWord(state: text) }
            let normalised = text.trimmingWhitespace.lowercased()
            guard !normalised.isEmpty else { throw .emptyState }
            guard states[normalised] == nil else { throw .stateTwice(text) }
            states[normalised] = status
        }

        /// The printer, once every key is given.
        public func printer() throws(Problem) -> MappedPrinter {
            // Only a camera: a printer found on its own, pictured by another entity.
            let cameraOnly = camera != nil && entities.isEmpty && states.isEmpty && !baseNamed
            guard entities[.status] != nil || cameraOnly else { throw .needsStatus(prefix: prefix) }
            var profile = base
            if !states.isEmpty || !baseNamed {
                profile.name = "mapped:" + prefix
                profile.title = baseNamed ? "\(base.title), states mapped" : "mapped in the settings file"
                for (text, status) in states { profile.statuses[text] = status }
            }
            return MappedPrinter(prefix: prefix, profile: profile, entities: entities, camera: camera)
        }
    }
}
