import PrintBridgeCore
import Yams

extension YAMLReader {
    /// Yams' error as the settings file's: libyaml's problem and its
    /// context (`did not find expected key (while parsing a block mapping
    /// at 2:3)`) at the problem's mark.
    func error(from error: any Error, in text: String) -> SettingsFileError {
        guard let error = error as? YamlError else { return fail(nil, .syntax("\(error)")) }
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
            let .composer(context, problem, mark, _):
            if problem == "but found another document" {
                return fail(mark, .syntax("a second document (after ---): a settings file is one document"))
            }
            var words = problem
            if let context { words += " (\(context.text) at \(context.mark))" }
            if Self.character(at: mark, in: text) == "\t" { words += "; a tab: YAML indents with spaces" }
            return fail(mark, .syntax(words))
        case let .reader(problem, offset, _, _):
            return SettingsFileError(
                path: path, position: offset.map { Self.position(ofCharacter: $0, in: text) }, reason: .syntax(problem))
        case let .duplicatedKeysInMapping(duplicates, context) where duplicates.count == 1:
            // Yams names the first of the two.
            return fail(context.mark, .setTwice(duplicates[0]))
        case let .duplicatedKeysInMapping(duplicates, _):
            // Several keys twice in one mapping: Yams' mark is of whichever its
            // sort puts first, and its order of a scalar and a list key is no
            // order (Node's `<` is false both ways), so the mark changes with
            // hashing from run to run. The keys are named without it.
            return SettingsFileError(path: path, position: nil, reason: .setTwice(duplicates.sorted().joined(separator: "\", \"")))
        default:
            return fail(nil, .syntax("\(error)"))
        }
    }

    /// The character at a mark (for a hint only: lines split at LF).
    static func character(at mark: Mark, in text: String) -> Unicode.Scalar? {
        var line = 1
        var column = 1
        for scalar in text.unicodeScalars {
            if line == mark.line, column == mark.column { return scalar }
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return nil
    }

    /// The line and column of the `offset`th Character (Yams gives reader
    /// errors as an offset).
    static func position(ofCharacter offset: Int, in text: String) -> SettingsPosition {
        var line = 1
        var column = 1
        for character in text.prefix(offset) {
            if character.isNewline {
                line += 1
                column = 1
            } else {
                column += character.unicodeScalars.count
            }
        }
        return SettingsPosition(line: line, column: column)
    }
}
