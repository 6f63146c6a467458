/// Encodes the payload types (`Encodable`, including the app's `ContentState`
/// and `PrinterActivityAttributes`) to compact JSON with sorted keys: the
/// same text as `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes`
/// and the default strategies (a `Date` is its seconds since 2001), at a
/// fraction of the cost. It runs for every push, between an HA event and
/// APNs. The types' own `Codable` conformances decide the shape, so the app
/// decodes what this writes with a plain `JSONDecoder`.
struct PayloadEncoder {
    struct Unsupported: Error, CustomStringConvertible {
        var description: String
    }

    func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let root = Node()
        try value.encode(to: TreeEncoder(node: root, codingPath: []))
        return Array(JSONText.encode(root.value).utf8)
    }
}

/// One value of the tree being built; containers fill it in place.
private final class Node {
    private enum Content {
        case empty
        case scalar(JSONValue)
        case object([String: Node])
        case array([Node])
    }

    private var content = Content.empty

    var value: JSONValue {
        switch content {
        case .empty: return .object([:])
        case .scalar(let value): return value
        case .object(let members): return .object(members.mapValues(\.value))
        case .array(let elements): return .array(elements.map(\.value))
        }
    }

    func set(_ value: JSONValue) { content = .scalar(value) }

    /// The member `key`, made an object if this node is not one yet.
    func member(_ key: String) -> Node {
        var members: [String: Node] = [:]
        if case .object(let existing) = content {
            if let node = existing[key] { return node }
            members = existing
            content = .empty  // `members` is then the only reference: inserting does not copy
        }
        let node = Node()
        members[key] = node
        content = .object(members)
        return node
    }

    func makeObject() {
        if case .object = content { return }
        content = .object([:])
    }

    /// A new last element, made an array if this node is not one yet.
    func appended() -> Node {
        var elements: [Node] = []
        if case .array(let existing) = content {
            elements = existing
            content = .empty  // `elements` is then the only reference: appending does not copy
        }
        let node = Node()
        elements.append(node)
        content = .array(elements)
        return node
    }

    func makeArray() {
        if case .array = content { return }
        content = .array([])
    }

    var count: Int {
        if case .array(let elements) = content { return elements.count }
        return 0
    }
}

private struct TreeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }
}

/// A value as JSON: the primitive types directly, anything else through its
/// own `encode(to:)`.
private func store<T: Encodable>(_ value: T, in node: Node, codingPath: [any CodingKey]) throws {
    switch value {
    case let text as String: node.set(.string(text))
    case let flag as Bool: node.set(.bool(flag))
    case let number as Double:
        guard number.isFinite else {
            throw PayloadEncoder.Unsupported(description: "\(number) at \(codingPath.map(\.stringValue)) is not a JSON number")
        }
        node.set(.number(number))
    case let number as Int: node.set(.number(Double(number)))
    default: try value.encode(to: TreeEncoder(node: node, codingPath: codingPath))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).set(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { node.member(key.stringValue).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { node.member(key.stringValue).set(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(Double(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(Double(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(Double(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(value, key) }

    private func put<T: Encodable>(_ value: T, _ key: Key) throws {
        try store(value, in: node.member(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = node.member(key.stringValue)
        child.makeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.member(key.stringValue)
        child.makeArray()
        return UnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        TreeEncoder(node: node.member("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    mutating func encodeNil() throws { node.appended().set(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = codingPath + [IndexKey(count)]
        try store(value, in: node.appended(), codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [IndexKey(count)]
        let child = node.appended()
        child.makeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [IndexKey(count)]
        let child = node.appended()
        child.makeArray()
        return UnkeyedContainer(node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        TreeEncoder(node: node.appended(), codingPath: codingPath + [IndexKey(count)])
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try store(value, in: node, codingPath: codingPath) }
}
