/// The catalog's message syntax, a small subset of ICU MessageFormat:
/// `{name}` is an argument, `{name, plural, one {# minute} other {# minutes}}`
/// picks a form by the language's plural rule, `#` being the number.
/// Anything else is literal text.
struct MessageFormat: Hashable, Sendable {
    enum Part: Hashable, Sendable {
        case literal(String)
        case argument(String)
        /// Forms by plural category (`one`, `other`, …); `other` is required.
        case plural(String, [String: MessageFormat])
        /// `#` inside a plural form.
        case number
    }

    let parts: [Part]

    struct SyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
        var description: String
    }

    init(_ text: String) throws(SyntaxError) {
        var scanner = Scanner(characters: Array(text))
        parts = try scanner.message(inPlural: false)
        guard scanner.atEnd else { throw SyntaxError(description: "unbalanced \"}\" in \"\(text)\"") }
    }

    private init(parts: [Part]) {
        self.parts = parts
    }

    /// Every argument name the message uses.
    var argumentNames: Set<String> {
        var names: Set<String> = []
        for part in parts {
            switch part {
            case .argument(let name): names.insert(name)
            case .plural(let name, let forms):
                names.insert(name)
                for form in forms.values { names.formUnion(form.argumentNames) }
            case .literal, .number: break
            }
        }
        return names
    }

    /// The text with each argument in place; a missing argument is left as `{name}`.
    func format(_ arguments: [String: CatalogArgument], language: Catalog.Numbers, number: Double? = nil) -> String {
        var text = ""
        for part in parts {
            switch part {
            case .literal(let literal): text += literal
            case .number: text += number.map { language.format($0) } ?? "#"
            case .argument(let name): text += arguments[name]?.text(language) ?? "{\(name)}"
            case .plural(let name, let forms):
                guard let value = arguments[name]?.numericValue else {
                    text += "{\(name)}"
                    continue
                }
                let form = forms[language.pluralCategory(value)] ?? forms["other"]!
                text += form.format(arguments, language: language, number: value)
            }
        }
        return text
    }

    private struct Scanner {
        let characters: [Character]
        var index = 0

        var atEnd: Bool { index == characters.count }

        mutating func message(inPlural: Bool) throws(SyntaxError) -> [Part] {
            var parts: [Part] = []
            var literal = ""
            func flush() {
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
            }
            while index < characters.count {
                let char = characters[index]
                if char == "}" { break }
                if char == "#", inPlural {
                    flush()
                    parts.append(.number)
                    index += 1
                } else if char == "{" {
                    flush()
                    index += 1
                    parts.append(try placeholder())
                } else {
                    literal.append(char)
                    index += 1
                }
            }
            flush()
            return parts
        }

        mutating func placeholder() throws(SyntaxError) -> Part {
            let name = word()
            guard !name.isEmpty else { throw SyntaxError(description: "an argument has no name") }
            skipSpaces()
            if take("}") { return .argument(name) }
            guard take(","), word() == "plural", take(",") else {
                throw SyntaxError(description: "{\(name)…} is neither {\(name)} nor {\(name), plural, …}")
            }
            var forms: [String: MessageFormat] = [:]
            while true {
                let category = word()
                if category.isEmpty { break }
                guard ["zero", "one", "two", "few", "many", "other"].contains(category) else {
                    throw SyntaxError(description: "\"\(category)\" is not a plural category")
                }
                guard take("{") else { throw SyntaxError(description: "plural form \(category) has no {…}") }
                forms[category] = MessageFormat(parts: try message(inPlural: true))
                guard take("}") else { throw SyntaxError(description: "plural form \(category) is not closed") }
            }
            guard take("}") else { throw SyntaxError(description: "{\(name), plural, …} is not closed") }
            guard forms["other"] != nil else { throw SyntaxError(description: "{\(name), plural, …} has no other {…}") }
            return .plural(name, forms)
        }

        mutating func word() -> String {
            skipSpaces()
            var word = ""
            while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" {
                word.append(characters[index])
                index += 1
            }
            return word
        }

        mutating func skipSpaces() {
            while index < characters.count, characters[index] == " " { index += 1 }
        }

        mutating func take(_ char: Character) -> Bool {
            skipSpaces()
            guard index < characters.count, characters[index] == char else { return false }
            index += 1
            return true
        }
    }
}

/// A value put into a catalog text.
public enum CatalogArgument: Hashable, Sendable {
    case text(String)
    /// A number, written with the language's decimal separator and at most
    /// `decimals` digits after it (trailing zeros dropped).
    case number(Double, decimals: Int)

    public static func count(_ value: Int) -> CatalogArgument { .number(Double(value), decimals: 0) }

    var numericValue: Double? {
        if case .number(let value, _) = self { return value }
        return nil
    }

    func text(_ numbers: Catalog.Numbers) -> String {
        switch self {
        case .text(let text): return text
        case .number(let value, let decimals): return numbers.format(value, decimals: decimals)
        }
    }
}
