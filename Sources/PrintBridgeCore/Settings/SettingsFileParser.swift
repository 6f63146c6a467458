/// The settings file: flat YAML, one `key: value` per line (a subset of
/// YAML 1.2 a person writes by hand), read without a YAML library. CRLF or
/// LF line ends, an optional byte-order mark, `#` comments, plain, single-
/// or double-quoted values; anything else is an error with its line.
public enum SettingsFileParser {
    /// A problem in the file, with where it is.
    public struct ParseError: Error, CustomStringConvertible {
        public let path: String
        public let line: Int
        public let reason: String
        public var description: String { line > 0 ? "\(path):\(line): \(reason)" : "\(path): \(reason)" }

        public init(path: String, line: Int, reason: String) {
            self.path = path
            self.line = line
            self.reason = reason
        }
    }

    /// Parses `text`: environment-style names (HA_URL) to values. `known`
    /// lists the setting names a file may hold.
    public static func parse(_ text: String, path: String, known knownNames: [String]) throws(ParseError) -> [String: String] {
        try parseWithLines(text, path: path, known: knownNames).values
    }

    /// `parse`, and the line each setting is on (so a message about a bad
    /// value can name the file's key and line).
    public static func parseWithLines(_ text: String, path: String, known knownNames: [String]) throws(ParseError)
        -> (values: [String: String], lines: [String: Int])
    {
        let document = try parseDocument(text, path: path, known: knownNames)
        return (document.values, document.lines)
    }

    /// A block setting's lines: its indented lines after `key:` (comments
    /// and blank lines dropped), each with its line number.
    public typealias Block = [(line: Int, text: Substring)]

    /// `parseWithLines`, and the blocks of the settings named in `blocks`:
    /// a block setting is `key:` alone on its line, followed by indented
    /// lines (`printers:` in the settings file) that the setting's own
    /// parser reads.
    public static func parseDocument(_ text: String, path: String, known knownNames: [String], blocks blockNames: Set<String> = [])
        throws(ParseError) -> (values: [String: String], lines: [String: Int], blocks: [String: Block])
    {
        let known = Set(knownNames).union(blockNames)
        var blocks: [String: Block] = [:]
        var openBlock: String?
        var values: [String: String] = [:]
        var lineNumbers: [String: Int] = [:]
        // A byte-order mark (Windows editors write one) is not part of the first key.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        // "\r\n" is one Character in Swift: split on both line endings.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            func fail(_ reason: String) -> ParseError { ParseError(path: path, line: number, reason: reason) }
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
            let trimmed = line.drop { $0 == " " }
            if trimmed.isEmpty || trimmed.first == "#" { continue }
            if number == 1, trimmed == "---" { continue }
            if line.contains("\t") { throw fail("tabs are not allowed in YAML indentation; use spaces") }
            if let block = openBlock, trimmed.count != line.count {
                blocks[block, default: []].append((number, line))
                continue
            }
            openBlock = nil
            if trimmed.count != line.count { throw fail("unexpected indentation: settings are one flat list of `key: value` lines") }
            if trimmed.first == "-" { throw fail("a list is not a setting: write `key: value`") }
            guard let colon = trimmed.firstIndex(of: ":") else { throw fail("expected `key: value`") }
            let key = String(trimmed[..<colon]).trimming(" ")
            let name = key.uppercased()
            if key.contains(" ") { throw fail("expected `key: value`") }
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw fail("\"\(key)\" is not a setting name")
            }
            guard known.contains(name) else {
                throw fail("unknown setting \"\(key)\" (known: \(knownNames.map { $0.lowercased() }.joined(separator: ", ")))")
            }
            guard values[name] == nil else { throw fail("\"\(key)\" is set twice") }
            let rest = trimmed[trimmed.index(after: colon)...]
            guard rest.isEmpty || rest.first == " " else { throw fail("expected a space after \"\(key):\"") }
            if blockNames.contains(name) {
                guard blocks[name] == nil else { throw fail("\"\(key)\" is set twice") }
                guard rest.trimming(" ").isEmpty || rest.trimming(" ").first == "#" else {
                    throw fail("\"\(key):\" takes its entries on the indented lines below it")
                }
                blocks[name] = []
                lineNumbers[name] = number
                openBlock = name
                continue
            }
            let value: String
            do { value = try Self.scalar(rest.trimming(" ")) } catch { throw fail(error.reason) }
            if value.isEmpty { throw fail("\"\(key)\" has no value (remove the line to use the default)") }
            values[name] = value
            lineNumbers[name] = number
        }
        return (values, lineNumbers, blocks)
    }

    /// A plain or quoted scalar (a block's parser reads its values with this).
    public static func value(_ text: some StringProtocol) -> Result<String, ParseError> {
        do { return .success(try scalar(String(text).trimming(" "))) } catch {
            return .failure(ParseError(path: "", line: 0, reason: error.reason))
        }
    }

    private struct ScalarError: Error { let reason: String }

    /// A plain or quoted scalar, without a trailing comment.
    private static func scalar(_ text: String) throws(ScalarError) -> String {
        guard let first = text.first else { return "" }
        if first == "\"" || first == "'" {
            var result = ""
            var index = text.index(after: text.startIndex)
            while index < text.endIndex {
                let character = text[index]
                if character == first {
                    if first == "'", text.index(after: index) < text.endIndex, text[text.index(after: index)] == "'" {
                        result.append("'")
                        index = text.index(index, offsetBy: 2)
                        continue
                    }
                    let after = text[text.index(after: index)...].trimming(" ")
                    guard after.isEmpty || after.first == "#" else { throw ScalarError(reason: "text after the closing quote") }
                    return result
                }
                if first == "\"", character == "\\" {
                    index = text.index(after: index)
                    guard index < text.endIndex else { break }
                    switch text[index] {
                    case "n": result.append("\n")
                    case "t": result.append("\t")
                    case "\\", "\"", "/": result.append(text[index])
                    default: throw ScalarError(reason: "unsupported escape \\\(text[index])")
                    }
                } else {
                    result.append(character)
                }
                index = text.index(after: index)
            }
            throw ScalarError(reason: "missing closing quote")
        }
        if "[{&*!|>%@`".contains(first) {
            throw ScalarError(reason: "quote a value starting with \(first), or use a plain `key: value`")
        }
        // A comment starts at " #".
        var plain = Substring(text)
        if let hash = text.indices.first(where: { text[$0] == "#" && $0 > text.startIndex && text[text.index(before: $0)] == " " }) {
            plain = text[..<hash]
        }
        return plain.trimming(" ")
    }
}

extension StringProtocol {
    /// Without `character` at either end.
    public func trimming(_ character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
