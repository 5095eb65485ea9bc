import MDMDiagnostics

/// A property-list value. Containers hold `PlistNode`s, so every nested value keeps its source position.
///
/// Equality compares values only, never positions, and treats two NaN reals as equal (so that
/// `read(write(v)) == v` holds for every value).
public enum PlistValue: Sendable {
    /// `<string>`, a JSON string.
    case string(String)
    /// `<integer>`, within 64 bits.
    case integer(Int64)
    /// `<real>`, a JSON number with a fraction or exponent.
    case real(Double)
    /// `<true/>` or `<false/>`.
    case boolean(Bool)
    /// `<date>`.
    case date(PlistDate)
    /// `<data>`, decoded from base64.
    case data([UInt8])
    /// `<array>`, its items with their positions.
    case array([PlistNode])
    /// `<dict>`, its entries in file order.
    case dictionary(PlistDictionary)

    /// The plist element name of this value's type: `string`, `integer`, `real`, `boolean`, `date`,
    /// `data`, `array` or `dict`.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .boolean: "boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dict"
        }
    }
}

/// A value and where it starts in its input.
public struct PlistNode: Sendable, Equatable {
    /// The value.
    public var value: PlistValue
    /// Where it starts in the file.
    public var position: SourcePosition

    /// `value` found at `position`.
    public init(_ value: PlistValue, at position: SourcePosition = .unknown) {
        self.value = value
        self.position = position
    }

    public static func == (lhs: PlistNode, rhs: PlistNode) -> Bool { lhs.value == rhs.value }
}

/// The members of a `<dict>`, in document order, with the position of each key.
public struct PlistDictionary: Sendable, Equatable {
    /// One key and its value.
    public struct Entry: Sendable, Equatable {
        /// The key.
        public var key: String
        /// Where the key is written.
        public var keyPosition: SourcePosition
        /// The value, with its own position.
        public var value: PlistNode

        /// An entry for `key`.
        public init(key: String, keyPosition: SourcePosition = .unknown, value: PlistNode) {
            self.key = key
            self.keyPosition = keyPosition
            self.value = value
        }

        public static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.key == rhs.key && lhs.value == rhs.value }
    }

    /// The entries in file order (a duplicate key is kept once, and reported).
    public var entries: [Entry]

    /// A dictionary of `entries`.
    public init(_ entries: [Entry] = []) { self.entries = entries }

    /// How many entries.
    public var count: Int { entries.count }
    /// True with no entry.
    public var isEmpty: Bool { entries.isEmpty }
    /// The keys in file order.
    public var keys: [String] { entries.map(\.key) }

    /// The value of `key`, or nil when absent.
    public subscript(key: String) -> PlistNode? {
        // By index, comparing keys where they stand: `for entry in entries` copies every entry it passes.
        for index in entries.indices where entries[index].key == key { return entries[index].value }
        return nil
    }

    /// The entry of `key`, or nil when absent.
    public func entry(_ key: String) -> Entry? {
        for index in entries.indices where entries[index].key == key { return entries[index] }
        return nil
    }
}

extension PlistValue: Equatable {
    public static func == (lhs: PlistValue, rhs: PlistValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a == b || (a.isNaN && b.isNaN)
        case (.boolean(let a), .boolean(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a == b
        default: false
        }
    }
}

extension PlistValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(arrayLiteral elements: PlistValue...) { self = .array(elements.map { PlistNode($0) }) }
    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        self = .dictionary(PlistDictionary(elements.map { .init(key: $0.0, value: PlistNode($0.1)) }))
    }
}
