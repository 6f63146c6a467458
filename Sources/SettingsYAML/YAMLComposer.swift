import CYAML

#if canImport(Glibc)
import Glibc
#endif

/// One YAML document composed from libyaml's parser events (libyaml 0.2.5,
/// Debian's libyaml-0-2): the parser does the YAML, this keeps the nodes,
/// their anchors and where each starts.
///
/// Why libyaml itself and not Yams, the Swift library over it: Yams
/// imports Foundation (and its Resolver NSRegularExpression), which the
/// statically linked agent would then carry with ICU's data: 96 MB instead
/// of 44 MB and 3.9 MB more resident for `run` (docs/BEHAVIOUR.md,
/// Settings). The composing Yams would have done is this file.
final class YAMLComposer {
    /// libyaml keeps a pointer to its parser (as its read handler's data)
    /// and to the input: both are allocated here and freed in deinit.
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let input: UnsafeMutableBufferPointer<UInt8>
    private var anchors: [String: YAMLNode] = [:]
    private var depth = 0
    /// Collections inside collections, at most; libyaml 0.2.5 sets no limit
    /// of its own and this composer recurses.
    static let maximumDepth = 64

    /// Why a document could not be composed, and where.
    enum Failure: Error {
        /// libyaml's error: its problem and, if it has one, its context.
        case syntax(problem: String, at: SettingsPosition?, context: (text: String, at: SettingsPosition)?)
        /// A second document after the first.
        case secondDocument(at: SettingsPosition)
        case undefinedAlias(String, at: SettingsPosition)
        /// A key given twice in one mapping, at its second place.
        case duplicateKey(String, at: SettingsPosition)
        case tooDeep(at: SettingsPosition)
    }

    init(_ text: String) {
        parser = .allocate(capacity: 1)
        var utf8 = Array(text.utf8)
        input = .allocate(capacity: max(utf8.count, 1))
        _ = input.initialize(from: utf8)
        utf8.removeAll()
        precondition(yaml_parser_initialize(parser) == 1, "libyaml could not allocate its parser")
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(parser, input.baseAddress, text.utf8.count)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
        input.deallocate()
    }

    /// The document's root, or nil when the text holds none (only comments).
    func document() throws(Failure) -> YAMLNode? {
        _ = try next()  // stream start
        let start = try next()
        guard start.type == YAML_DOCUMENT_START_EVENT else { return nil }
        let root = try node(from: try next())
        _ = try next()  // document end
        let end = try next()
        guard end.type == YAML_STREAM_END_EVENT else { throw .secondDocument(at: end.position) }
        return root
    }

    /// An event's parts this composer uses, copied out of libyaml's.
    private struct Event {
        var type: yaml_event_type_t
        var position: SettingsPosition
        var anchor: String?
        var tag = ""
        var text = ""
        var style = YAMLScalar.Style.plain
    }

    private func next() throws(Failure) -> Event {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else { throw failure() }
        defer { yaml_event_delete(&event) }
        let mark = event.start_mark
        var copy = Event(type: event.type, position: SettingsPosition(line: mark.line + 1, column: mark.column + 1))
        switch event.type {
        case YAML_ALIAS_EVENT:
            copy.anchor = Self.string(event.data.alias.anchor)
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            copy.anchor = Self.string(scalar.anchor)
            copy.tag = Self.string(scalar.tag) ?? ""
            copy.text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            switch scalar.style {
            case YAML_SINGLE_QUOTED_SCALAR_STYLE: copy.style = .singleQuoted
            case YAML_DOUBLE_QUOTED_SCALAR_STYLE: copy.style = .doubleQuoted
            case YAML_LITERAL_SCALAR_STYLE: copy.style = .literal
            case YAML_FOLDED_SCALAR_STYLE: copy.style = .folded
            default: copy.style = .plain
            }
        case YAML_SEQUENCE_START_EVENT:
            copy.anchor = Self.string(event.data.sequence_start.anchor)
        case YAML_MAPPING_START_EVENT:
            copy.anchor = Self.string(event.data.mapping_start.anchor)
        default:
            break
        }
        return copy
    }

    private func node(from event: Event) throws(Failure) -> YAMLNode {
        let node: YAMLNode
        switch event.type {
        case YAML_ALIAS_EVENT:
            guard let name = event.anchor, let target = anchors[name] else {
                throw .undefinedAlias(event.anchor ?? "", at: event.position)
            }
            return target
        case YAML_SCALAR_EVENT:
            node = .scalar(YAMLScalar(text: event.text, style: event.style, tag: event.tag, position: event.position))
        case YAML_SEQUENCE_START_EVENT:
            depth += 1
            guard depth <= Self.maximumDepth else { throw .tooDeep(at: event.position) }
            var items: [YAMLNode] = []
            var item = try next()
            while item.type != YAML_SEQUENCE_END_EVENT {
                items.append(try self.node(from: item))
                item = try next()
            }
            depth -= 1
            node = .sequence(items, at: event.position)
        case YAML_MAPPING_START_EVENT:
            depth += 1
            guard depth <= Self.maximumDepth else { throw .tooDeep(at: event.position) }
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            var keys: Set<String> = []
            var keyEvent = try next()
            while keyEvent.type != YAML_MAPPING_END_EVENT {
                let key = try self.node(from: keyEvent)
                if case .scalar(let scalar) = key, !keys.insert(scalar.text).inserted {
                    throw .duplicateKey(scalar.text, at: keyEvent.position)
                }
                pairs.append((key, try self.node(from: try next())))
                keyEvent = try next()
            }
            depth -= 1
            node = .mapping(pairs, at: event.position)
        default:
            throw .syntax(problem: "unexpected event \(event.type.rawValue)", at: event.position, context: nil)
        }
        // Registered once complete, as Yams does: an alias inside its own
        // anchor's node is undefined, so no node contains itself.
        if let anchor = event.anchor { anchors[anchor] = node }
        return node
    }

    /// libyaml's error, with its marks (0-based there).
    private func failure() -> Failure {
        let parser = self.parser.pointee
        let problem = Self.string(parser.problem) ?? "unknown error"
        func position(_ mark: yaml_mark_t) -> SettingsPosition { SettingsPosition(line: mark.line + 1, column: mark.column + 1) }
        switch parser.error {
        case YAML_READER_ERROR:
            // Reader errors (a control character, bad UTF-8) have a byte offset, not a mark.
            return .syntax(problem: problem, at: Self.position(ofByte: Int(parser.problem_offset), in: input), context: nil)
        case YAML_SCANNER_ERROR, YAML_PARSER_ERROR:
            let context = Self.string(parser.context).map { (text: $0, at: position(parser.context_mark)) }
            return .syntax(problem: problem, at: position(parser.problem_mark), context: context)
        default:
            return .syntax(problem: problem, at: nil, context: nil)
        }
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: UnsafePointer($0)) }
    }

    /// Line and column (in Unicode scalars, as libyaml counts) of a byte offset.
    static func position(ofByte offset: Int, in bytes: UnsafeMutableBufferPointer<UInt8>) -> SettingsPosition {
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return SettingsPosition(line: line, column: column)
    }
}
