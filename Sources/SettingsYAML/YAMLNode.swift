/// A YAML node as libyaml's events give it, with where it starts: what the
/// settings file's reader walks. Aliases are already the node they name.
indirect enum YAMLNode {
    case scalar(YAMLScalar)
    case sequence([YAMLNode], at: SettingsPosition)
    case mapping([(key: YAMLNode, value: YAMLNode)], at: SettingsPosition)

    var position: SettingsPosition {
        switch self {
        case .scalar(let scalar): scalar.position
        case .sequence(_, let position), .mapping(_, let position): position
        }
    }
}

/// A scalar's text as libyaml read it (quotes, escapes and folding
/// resolved), its style and its explicit tag, if any.
struct YAMLScalar {
    enum Style { case plain, singleQuoted, doubleQuoted, literal, folded }

    let text: String
    let style: Style
    /// The tag as written, resolved to its full name (`!!str` is
    /// `tag:yaml.org,2002:str`); empty when there is none.
    let tag: String
    let position: SettingsPosition
}
