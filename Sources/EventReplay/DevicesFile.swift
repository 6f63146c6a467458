import PrintBridgeCore

/// The devices file of `replay --devices FILE`: a JSON array of
/// `{"apnsToken", "printerPrefix"?, "printerName"?, "language"?, "settings"?, "activityTokens"?, "pushToStartToken"?,
/// "activityChannels"?}`, the same fields the HTTP API takes (`settings` the switches and the schedule's keys,
/// `quietHours` and the rest, as the settings PATCH). `activityChannels` lists the printers whose
/// Live Activity the phone follows by the printer's broadcast channel (iOS 18; the API's
/// `POST /api/devices/{deviceId}/activity-channel`) instead of a token; a printer in both is an error.
public enum DevicesFile {
    public struct Error: Swift.Error, CustomStringConvertible {
        public var description: String
    }

    /// One demo device that follows every printer with every notification on;
    /// replay gives it a Live Activity for every printer (see
    /// `ReplayRun.demo`), so every kind of push shows without a devices file.
    public static let demoDevices: [Device] = [
        Device(id: "demo", apnsToken: String(repeating: "d0", count: 32))
    ]

    /// Reads and parses a devices file.
    public static func load(path: String) throws(Error) -> [Device] {
        var bytes: [UInt8] = []
        do {
            var reader = try LineReader(path: path)
            try reader.forEachLine { line, _ in
                bytes.append(contentsOf: line)
                bytes.append(0x0A)
            }
        } catch {
            throw Error(description: "devices file: \(error)")
        }
        return try parse(bytes, source: path)
    }

    public static func parse(_ bytes: [UInt8], source: String) throws(Error) -> [Device] {
        let json: JSONValue
        do throws(JSONParser.Error) { json = try JSONParser.parse(bytes) } catch {
            throw Error(description: "\(source): \(error)")
        }
        guard let elements = json.arrayValue else {
            throw Error(description: "\(source): expected a JSON array of devices")
        }
        var devices: [Device] = []
        var seen: Set<String> = []
        for (index, element) in elements.enumerated() {
            let place = "\(source): device \(index + 1)"
            guard let object = element.objectValue else { throw Error(description: "\(place): not an object") }
            guard let token = object["apnsToken"]?.stringValue, TokenFormat.isPlausibleToken(token) else {
                throw Error(description: "\(place): \"apnsToken\" must be a hex APNs device token (64+ hex digits)")
            }
            let normalized = token.lowercased()
            guard seen.insert(normalized).inserted else {
                throw Error(description: "\(place): token \(TokenFormat.shortened(normalized)) is listed twice")
            }
            var device = Device(id: "device-\(index + 1)", apnsToken: normalized)
            if let prefix = object["printerPrefix"] {
                guard let text = prefix.stringValue, !text.isEmpty else {
                    throw Error(description: "\(place): \"printerPrefix\" must be a non-empty string")
                }
                device.printerPrefixes = [text]
            }
            device.printerName = object["printerName"]?.stringValue
            if let value = object["language"], value != .null {
                guard let tag = value.stringValue, Catalog.isLanguageTag(tag) else {
                    throw Error(description: "\(place): \"language\" must be a language tag such as \"de\" or \"fr-CA\"")
                }
                device.language = tag
            }
            if let settings = object["settings"] {
                device.preferences = try preferences(settings, place: place)
            }
            if let tokens = object["activityTokens"] {
                guard let map = tokens.objectValue else {
                    throw Error(description: "\(place): \"activityTokens\" must map printer prefixes to tokens")
                }
                for (prefix, value) in map {
                    guard let token = value.stringValue, TokenFormat.isPlausibleToken(token) else {
                        throw Error(description: "\(place): activity token for \(prefix) is not a hex token")
                    }
                    device.activityTokens[prefix] = token.lowercased()
                }
            }
            if let value = object["activityChannels"], value != .null {
                guard let list = value.arrayValue, list.allSatisfy({ ($0.stringValue ?? "").isEmpty == false }) else {
                    throw Error(description: "\(place): \"activityChannels\" must be a list of printer prefixes")
                }
                device.channelPrinters = Set(list.compactMap(\.stringValue))
                if let both = device.channelPrinters.intersection(device.activityTokens.keys).sorted().first {
                    throw Error(description: "\(place): \(both) is in both \"activityTokens\" and \"activityChannels\": an activity goes by one or the other")
                }
            }
            if let value = object["pushToStartToken"], value != .null {
                guard let token = value.stringValue, TokenFormat.isPlausibleToken(token) else {
                    throw Error(description: "\(place): \"pushToStartToken\" is not a hex token")
                }
                device.pushToStartToken = token.lowercased()
            }
            devices.append(device)
        }
        return devices
    }

    private static func preferences(_ json: JSONValue, place: String) throws(Error) -> NotificationPreferences {
        guard let object = json.objectValue else { throw Error(description: "\(place): \"settings\" must be an object") }
        var preferences = NotificationPreferences.all
        let keys = NotificationPreferences.switches.map { ($0.name, $0.keyPath) }
        for (key, path) in keys {
            guard let value = object[key] else { continue }
            guard let flag = value.boolValue else {
                throw Error(description: "\(place): settings.\(key) must be true or false")
            }
            preferences[keyPath: path] = flag
        }
        for key in object.keys where !keys.contains(where: { $0.0 == key }) && !AlertSchedule.keys.contains(key) {
            throw Error(description: "\(place): unknown setting \"\(key)\"")
        }
        // The schedule's keys, as the settings PATCH takes them (issue 53).
        var problems: [String: [String]] = [:]
        let patch = AlertSchedule.patch(object, problems: &problems)
        if let (key, texts) = problems.sorted(by: { $0.key < $1.key }).first {
            throw Error(description: "\(place): settings.\(key) \(texts.joined(separator: "; "))")
        }
        preferences.schedule = patch.applied(to: preferences.schedule)
        return preferences
    }
}
