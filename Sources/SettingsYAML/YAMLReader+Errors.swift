import PrintBridgeCore

extension YAMLReader {
    /// The composer's failure as the settings file's error: libyaml's
    /// problem and its context (`did not find expected key (while parsing
    /// a block mapping at 2:3)`) at the problem's position.
    func error(from failure: YAMLComposer.Failure, in text: String) -> SettingsFileError {
        switch failure {
        case let .syntax(problem, position, context):
            var words = problem
            if let context { words += " (\(context.text) at \(context.at))" }
            if let position, Self.character(at: position, in: text) == "\t" { words += "; a tab: YAML indents with spaces" }
            return fail(position, .syntax(words))
        case .secondDocument(let position):
            return fail(position, .syntax("a second document (after ---): a settings file is one document"))
        case let .undefinedAlias(name, position):
            return fail(position, .syntax("found undefined alias *\(name)"))
        case let .duplicateKey(key, position):
            return fail(position, .setTwice(key))
        case .tooDeep(let position):
            return fail(position, .syntax("nested more than \(YAMLComposer.maximumDepth) levels deep"))
        }
    }

    /// The character at a position (for a hint only: lines split at LF).
    static func character(at position: SettingsPosition, in text: String) -> Unicode.Scalar? {
        var line = 1
        var column = 1
        for scalar in text.unicodeScalars {
            if line == position.line, column == position.column { return scalar }
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return nil
    }
}
