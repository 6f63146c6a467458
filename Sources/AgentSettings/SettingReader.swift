/// Reads values from the sources and collects the problems, one per bad value.
struct SettingReader {
    let sources: SettingSources
    private(set) var values: [String: Settings.Value] = [:]
    private(set) var problems: [SettingProblem] = []

    init(sources: SettingSources) {
        self.sources = sources
        for name in SettingCatalog.names {
            if let value = sources.value(of: name) { values[name] = value }
        }
    }

    func text(_ name: String) -> String? { values[name]?.text }

    /// " (the systemd credential ha-token is missing or empty)" when running
    /// under systemd credentials and `name` (a secret's path setting) is set
    /// by nothing, so a start-up error names the file the owner has to create.
    func credentialHint(for name: String) -> String {
        guard let file = SettingSources.credentialNames[name], environment("CREDENTIALS_DIRECTORY") != nil,
            values[name] == nil
        else { return "" }
        return " (the systemd credential \(file) is missing or empty)"
    }

    /// A process fact that is not a setting (SUPERVISOR_TOKEN, HOME, …).
    func environment(_ name: String) -> String? { sources.environment[name] }

    mutating func problem(_ section: Settings.Section, _ setting: String?, _ message: String) {
        problems.append(SettingProblem(section, setting, message))
    }

    /// A positive, finite number (seconds, megabytes), or nil when unset or bad.
    mutating func positiveNumber(_ name: String, _ section: Settings.Section) -> Double? {
        guard let text = text(name) else { return nil }
        guard let value = Double(text), value > 0, value.isFinite else {
            problem(section, name, "\(name) must be a positive number")
            return nil
        }
        return value
    }

    /// true/false, yes/no, on/off, 1/0.
    mutating func flag(_ name: String, _ section: Settings.Section) -> Bool? {
        guard let text = text(name) else { return nil }
        switch text.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default:
            problem(section, name, "\(name) must be true or false")
            return nil
        }
    }

    /// The first line of a token file, or nil with a problem.
    mutating func token(inFile name: String, _ section: Settings.Section) -> String? {
        guard let path = text(name) else { return nil }
        guard let text = sources.read(path) else {
            problem(section, name, "\(name) \(path) cannot be read")
            return nil
        }
        guard let token = text.split(whereSeparator: \.isNewline).first.map(String.init), !token.isEmpty else {
            problem(section, name, "\(name) \(path) is empty")
            return nil
        }
        return token
    }
}

