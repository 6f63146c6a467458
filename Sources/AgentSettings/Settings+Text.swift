import PrintBridgeCore

/// Words about settings for people: file keys instead of variable names,
/// secrets kept out.
extension Settings {
    /// `message` with each setting that came from the settings file named as
    /// the file names it: "API_LISTEN must be …" becomes
    /// "api_listen (/etc/printbridge/printbridge.yaml:4) must be …".
    public func naming(_ message: String) -> String {
        guard let file = sources.file else { return message }
        var result = message
        for (name, position) in file.positions.sorted(by: { $0.key.count > $1.key.count })
        where values[name]?.source == .file && result.contains(name) {
            result = Self.replacingWord(name, with: "\(name.lowercased()) (\(file.path):\(position))", in: result)
        }
        return result
    }

    /// A problem's line, its settings named as the file names them.
    public func line(for problem: SettingProblem) -> String { naming(problem.message) }

    /// Replaces `word` where it stands alone (not inside API_TOKEN_FILE for API_TOKEN).
    static func replacingWord(_ word: String, with replacement: String, in text: String) -> String {
        func isNamePart(_ character: Character?) -> Bool {
            guard let character else { return false }
            return character.isLetter || character.isNumber || character == "_"
        }
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix(word) {
                let end = text.index(index, offsetBy: word.count)
                let before = index == text.startIndex ? nil : text[text.index(before: index)]
                let after = end == text.endIndex ? nil : text[end]
                result += isNamePart(before) || isNamePart(after) ? word : replacement
                index = end
            } else {
                result.append(text[index])
                index = text.index(after: index)
            }
        }
        return result
    }

    /// Every secret the settings hold: the tokens as read (given directly,
    /// from their files or the Supervisor), and a password in a URL. Longest
    /// first, so a secret inside another is not half replaced.
    public var secretValues: [String] {
        var secrets = [homeAssistant.token, api.token].compactMap { $0 }
        for setting in SettingCatalog.all {
            guard let value = values[setting.name]?.text else { continue }
            if setting.secret { secrets.append(value.trimming(" ")) }
            // user:password@ in a URL.
            let parts = value.split(separator: "://", maxSplits: 1)
            if parts.count == 2, let authority = parts[1].split(separator: "/", maxSplits: 1).first,
                let at = authority.lastIndex(of: "@")
            {
                let userinfo = authority[..<at]
                if let colon = userinfo.firstIndex(of: ":") { secrets.append(String(userinfo[userinfo.index(after: colon)...])) }
            }
        }
        return secrets.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
    }

}

/// Replaces every secret the settings hold with `<redacted>`.
public struct Redactor: Sendable {
    /// Longest first.
    let secrets: [String]

    public init(_ settings: Settings) { secrets = settings.secretValues }

    /// `line` with every secret replaced (a secret can end up inside another setting's value).
    public func callAsFunction(_ line: String) -> String {
        var result = line
        for secret in secrets where result.contains(secret) {
            result = result.split(separator: secret, omittingEmptySubsequences: false).joined(separator: "<redacted>")
        }
        return result
    }
}
