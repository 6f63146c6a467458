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

    public typealias ParseError = SettingsFileParser.ParseError

    /// The printers of a `printers:` block. Every problem is an error naming
    /// its line.
    public static func parse(_ block: SettingsFileParser.Block, path: String) throws(ParseError) -> [MappedPrinter] {
        var printers: [MappedPrinter] = []
        var owner: [String: String] = [:]
        var index = 0
        func fail(_ line: Int, _ reason: String) -> ParseError { ParseError(path: path, line: line, reason: "printers: " + reason) }
        func indent(_ text: Substring) -> Int { text.prefix { $0 == " " }.count }
        func entry(_ line: Int, _ text: Substring) throws(ParseError) -> (key: String, value: String?) {
            let trimmed = text.drop { $0 == " " }
            if trimmed.first == "-" { throw fail(line, "a list is not an entry: write `key: value`") }
            let keyText: String
            let rest: Substring
            if let quote = trimmed.first, quote == "\"" || quote == "'" {
                guard let close = trimmed.dropFirst().firstIndex(of: quote) else { throw fail(line, "missing closing quote") }
                keyText = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
                rest = trimmed[trimmed.index(after: close)...].drop { $0 == " " }
                guard rest.first == ":" else { throw fail(line, "expected `\"text\": value`") }
            } else {
                guard let colon = trimmed.firstIndex(of: ":") else { throw fail(line, "expected `key: value`") }
                keyText = String(trimmed[..<colon]).trimming(" ")
                rest = trimmed[colon...]
            }
            let after = rest.dropFirst()
            guard after.isEmpty || after.first == " " else { throw fail(line, "expected a space after \"\(keyText):\"") }
            if after.drop(while: { $0 == " " }).first == "#" { return (keyText, nil) }  // `key:  # a comment`
            switch SettingsFileParser.value(after) {
            case .success(let value): return (keyText, value.isEmpty ? nil : value)
            case .failure(let error): throw fail(line, error.reason)
            }
        }
        guard let first = block.first else { throw fail(0, "no printers under \"printers:\"") }
        let printerIndent = indent(first.text)
        while index < block.count {
            let (line, text) = block[index]
            guard indent(text) == printerIndent else { throw fail(line, "unexpected indentation") }
            let (prefix, value) = try entry(line, text)
            guard value == nil else { throw fail(line, "\"\(prefix)\" needs its entities on the indented lines below it") }
            guard !prefix.isEmpty, prefix.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                throw fail(line, "\"\(prefix)\" is not a printer name (letters, digits, _ and -)")
            }
            guard !printers.contains(where: { $0.prefix == prefix }) else { throw fail(line, "printer \"\(prefix)\" is mapped twice") }
            index += 1
            var base = PrinterProfile.default
            var baseNamed = false
            var entities: [PrinterField: String] = [:]
            var states: [String: PrintStatus?] = [:]
            var camera: String?
            var keyIndent: Int?
            while index < block.count, indent(block[index].text) > printerIndent {
                let (line, text) = block[index]
                let here = indent(text)
                if keyIndent == nil { keyIndent = here }
                guard here == keyIndent else { throw fail(line, "unexpected indentation") }
                let (key, value) = try entry(line, text)
                index += 1
                switch key {
                case "profile":
                    guard let value, let named = PrinterProfile.named(value) else {
                        throw fail(line, "unknown profile \"\(value ?? "")\" (known: "
                            + PrinterProfile.builtIn.map(\.name).joined(separator: ", ") + ")")
                    }
                    base = named
                    baseNamed = true
                case "states":
                    guard value == nil else { throw fail(line, "\"states:\" takes `\"text\": status` lines below it") }
                    var stateIndent: Int?
                    while index < block.count, indent(block[index].text) > here {
                        let (line, text) = block[index]
                        if stateIndent == nil { stateIndent = indent(text) }
                        guard indent(text) == stateIndent else { throw fail(line, "unexpected indentation") }
                        let (state, word) = try entry(line, text)
                        guard let word, let status = statusWords[word.lowercased()] else {
                            throw fail(line, "\"\(state)\" must map to one of "
                                + statusWords.keys.sorted().joined(separator: ", "))
                        }
                        let normalised = state.trimmingWhitespace.lowercased()
                        guard !normalised.isEmpty else { throw fail(line, "an empty state text") }
                        guard states[normalised] == nil else { throw fail(line, "state \"\(state)\" is mapped twice") }
                        states[normalised] = status
                        index += 1
                    }
                    guard stateIndent != nil else { throw fail(line, "\"states:\" has no entries") }
                case "camera":
                    guard let value, isEntityID(value), value.hasPrefix("camera.") || value.hasPrefix("image.") else {
                        throw fail(line, "camera must be a camera or image entity id such as camera.\(prefix)_camera")
                    }
                    guard camera == nil else { throw fail(line, "camera is set twice") }
                    camera = value
                default:
                    guard let role = roles.first(where: { $0.name == key }) else {
                        throw fail(line, "unknown key \"\(key)\" (known: profile, states, camera, "
                            + roles.map(\.name).joined(separator: ", ") + ")")
                    }
                    guard let value, isEntityID(value) else {
                        throw fail(line, "\(key) must be an entity id such as sensor.\(prefix)_\(key)")
                    }
                    guard entities[role.field] == nil else { throw fail(line, "\(key) is set twice") }
                    if let other = owner[value] { throw fail(line, "\(value) is already \(other)") }
                    owner[value] = "\(prefix)'s \(key)"
                    entities[role.field] = value
                }
            }
            // Only a camera: a printer found on its own, pictured by another entity.
            let cameraOnly = camera != nil && entities.isEmpty && states.isEmpty && !baseNamed
            guard entities[.status] != nil || cameraOnly else {
                throw fail(line, "printer \"\(prefix)\" needs a status entity (or only a camera)")
            }
            var profile = base
            if !states.isEmpty || !baseNamed {
                profile.name = "mapped:" + prefix
                profile.title = baseNamed ? "\(base.title), states mapped" : "mapped in the settings file"
                for (text, status) in states { profile.statuses[text] = status }
            }
            printers.append(MappedPrinter(prefix: prefix, profile: profile, entities: entities, camera: camera))
        }
        return printers
    }

    /// `domain.object_id` as HA writes entity ids.
    public static func isEntityID(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2
            && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" } }
    }
}
