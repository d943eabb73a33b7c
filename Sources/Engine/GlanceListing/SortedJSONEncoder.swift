/// Writes any `Encodable` value as JSONEncoder does with `[.prettyPrinted, .sortedKeys]`, into
/// the listing's byte buffer: the value's own `encode(to:)` says its fields, so a field added to
/// a record's details is written without a line here. (Foundation's JSONEncoder per row cost
/// more than the rest of a 10,000-row listing; this one builds a small tree and prints it.)
enum SortedJSONEncoder {
    /// Writes `value` at `level` (2 spaces each): the value's opening bracket where the caller
    /// is, its closing one at `level`.
    static func write<Value: Encodable>(_ value: Value, level: Int, to output: inout JSONBytes) throws {
        let root = JSONNode()
        try value.encode(to: TreeEncoder(node: root))
        root.write(level: level, to: &output)
    }
}

/// One value of the tree an `encode(to:)` builds.
private final class JSONNode {
    enum Kind {
        case null, bool(Bool), integer(Int64), unsigned(UInt64), decimal(Double), string(String), object, array
    }

    var kind = Kind.null
    var fields: [String: JSONNode] = [:]
    var elements: [JSONNode] = []

    init(_ kind: Kind = .null) { self.kind = kind }

    func write(level: Int, to output: inout JSONBytes) {
        switch kind {
        case .null: output.raw("null")
        case .bool(let value): output.raw(value ? "true" : "false")
        case .integer(let value): output.number(value)
        case .unsigned(let value): output.text(String(value))
        case .decimal(let value): output.decimal(value)
        case .string(let value): output.quoted(value)
        case .object:
            let keys = fields.keys.sorted()
            output.raw("{\n")
            if keys.isEmpty { output.raw("\n") }
            for (index, key) in keys.enumerated() {
                output.indent(level + 1)
                output.quoted(key)
                output.raw(" : ")
                fields[key]!.write(level: level + 1, to: &output)
                output.raw(index == keys.count - 1 ? "\n" : ",\n")
            }
            output.indent(level)
            output.raw("}")
        case .array:
            output.raw("[\n")
            if elements.isEmpty { output.raw("\n") }
            for (index, element) in elements.enumerated() {
                output.indent(level + 1)
                element.write(level: level + 1, to: &output)
                output.raw(index == elements.count - 1 ? "\n" : ",\n")
            }
            output.indent(level)
            output.raw("]")
        }
    }

    /// The node for one primitive value.
    static func leaf<Value>(_ value: Value) -> JSONNode {
        switch value {
        case let value as Bool: JSONNode(.bool(value))
        case let value as String: JSONNode(.string(value))
        case let value as Double: JSONNode(.decimal(value))
        case let value as Float: JSONNode(.decimal(Double(value)))
        case let value as UInt64: JSONNode(.unsigned(value))
        case let value as UInt: JSONNode(.unsigned(UInt64(value)))
        case let value as any BinaryInteger: JSONNode(.integer(Int64(value)))
        default: JSONNode()
        }
    }
}

private struct TreeEncoder: Encoder {
    let node: JSONNode
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.kind = .object
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.kind = .array
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONNode
    var codingPath: [any CodingKey]

    private func child(_ key: Key, _ kind: JSONNode.Kind = .null) -> JSONNode {
        let child = JSONNode(kind)
        node.fields[key.stringValue] = child
        return child
    }

    mutating func encodeNil(forKey key: Key) throws { _ = child(key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { node.fields[key.stringValue] = .leaf(value) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try value.encode(to: TreeEncoder(node: child(key), codingPath: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child(key, .object), codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        UnkeyedContainer(node: child(key, .array), codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let node = JSONNode()
        self.node.fields["super"] = node
        return TreeEncoder(node: node, codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: child(key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: JSONNode
    var codingPath: [any CodingKey]
    var count: Int { node.elements.count }

    private func append(_ kind: JSONNode.Kind = .null) -> JSONNode {
        let element = JSONNode(kind)
        node.elements.append(element)
        return element
    }

    mutating func encodeNil() throws { _ = append() }
    mutating func encode(_ value: Bool) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: String) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: Double) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: Float) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: Int) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: Int8) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: Int16) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: Int32) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: Int64) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: UInt) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: UInt8) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: UInt16) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: UInt32) throws { node.elements.append(.leaf(value)) }
    mutating func encode(_ value: UInt64) throws { node.elements.append(.leaf(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: TreeEncoder(node: append(), codingPath: codingPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(KeyedContainer<NestedKey>(node: append(.object), codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedContainer(node: append(.array), codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: append(), codingPath: codingPath) }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: JSONNode
    var codingPath: [any CodingKey]

    private func set(_ leaf: JSONNode) {
        node.kind = leaf.kind
    }

    mutating func encodeNil() throws { node.kind = .null }
    mutating func encode(_ value: Bool) throws { set(.leaf(value)) }
    mutating func encode(_ value: String) throws { set(.leaf(value)) }
    mutating func encode(_ value: Double) throws { set(.leaf(value)) }
    mutating func encode(_ value: Float) throws { set(.leaf(value)) }
    mutating func encode(_ value: Int) throws { set(.leaf(value)) }
    mutating func encode(_ value: Int8) throws { set(.leaf(value)) }
    mutating func encode(_ value: Int16) throws { set(.leaf(value)) }
    mutating func encode(_ value: Int32) throws { set(.leaf(value)) }
    mutating func encode(_ value: Int64) throws { set(.leaf(value)) }
    mutating func encode(_ value: UInt) throws { set(.leaf(value)) }
    mutating func encode(_ value: UInt8) throws { set(.leaf(value)) }
    mutating func encode(_ value: UInt16) throws { set(.leaf(value)) }
    mutating func encode(_ value: UInt32) throws { set(.leaf(value)) }
    mutating func encode(_ value: UInt64) throws { set(.leaf(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: TreeEncoder(node: node, codingPath: codingPath))
    }
}
