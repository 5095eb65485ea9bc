import MDMDiagnostics
import PropertyList

/// What a schema says about one key: its type, presence, allowed values and constraints, nested keys,
/// and the text an admin sees. Every importer compiles into this one model; the validator reads only it.
public struct KeySpec: Sendable {
    public var name: String
    /// Allowed types (a union when more than one); empty means any type.
    public var types: [ValueType]
    /// The key must be present (inside a parent that is present), and not an empty string or array.
    public var required: Bool
    /// Required when any of these condition sets holds (`pfm_conditionals`).
    public var requiredWhen: [[Condition]]
    /// Forbidden when any of these condition sets holds (`pfm_exclude`).
    public var excludedWhen: [[Condition]]
    public var defaultValue: PlistValue?
    /// Allowed values with their titles; nil when any value is allowed.
    public var allowedValues: [AllowedValue]?
    /// Custom values are allowed besides the listed ones (`pfm_range_list_allow_custom_value`).
    public var allowsCustomValue: Bool
    /// Numeric bounds (integer, real) or date bounds, inclusive.
    public var minimum: Bound?
    public var maximum: Bound?
    /// String length bounds in characters, inclusive.
    public var minLength: Int?
    public var maxLength: Int?
    public var pattern: Pattern?
    /// Array element count bounds, inclusive.
    public var minCount: Int?
    public var maxCount: Int?
    public var uniqueItems: Bool
    /// The spec of every array item.
    public var items: [KeySpec]
    /// The members of a dictionary; nil when any members are allowed.
    public var children: [KeySpec]? {
        didSet { childPositions = Self.index(children) }
    }
    /// Where each child is in `children`, by name (the first, when a schema declares one twice).
    private var childPositions: [String: Int] = [:]
    public var sensitive: Bool
    public var availability: Availability
    /// Why the key is deprecated, when it is.
    public var deprecation: String?
    public var title: String?
    public var description: String?
    /// Where the key is declared in its schema file.
    public var position: SourcePosition

    public init(name: String, types: [ValueType] = [], position: SourcePosition = .unknown) {
        self.name = name
        self.types = types
        self.required = false
        self.requiredWhen = []
        self.excludedWhen = []
        self.allowsCustomValue = false
        self.uniqueItems = false
        self.items = []
        self.sensitive = false
        self.availability = Availability()
        self.position = position
    }

    /// The spec of child `name` of a dictionary key.
    public func child(_ name: String) -> KeySpec? { childIndex(name).flatMap { children?[$0] } }

    /// The index in `children` of child `name`.
    public func childIndex(_ name: String) -> Int? { childPositions[name] }

    private static func index(_ children: [KeySpec]?) -> [String: Int] {
        var positions: [String: Int] = [:]
        for (offset, child) in (children ?? []).enumerated() where positions[child.name] == nil {
            positions[child.name] = offset
        }
        return positions
    }
}

/// One allowed value and the title a console shows for it.
public struct AllowedValue: Sendable {
    public var value: PlistValue
    public var title: String?

    public init(_ value: PlistValue, title: String? = nil) {
        self.value = value
        self.title = title
    }
}

/// A numeric or date bound.
public enum Bound: Sendable, Equatable, CustomStringConvertible {
    case number(Double)
    case date(PlistDate)

    public var description: String {
        switch self {
        case .number(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .date(let date): date.iso8601
        }
    }
}

/// A test of a sibling key's value, from `pfm_conditionals` and `pfm_exclude`.
public struct Condition: Sendable {
    public enum Test: Sendable {
        /// The target is present (true) or absent (false).
        case present(Bool)
        /// The target is present and equal to one of these.
        case oneOf([PlistValue])
        /// The target is present and equal to none of these.
        case noneOf([PlistValue])
        /// The target is an array holding at least one of these.
        case containsAny([PlistValue])
        /// The configuration is for one of these platforms (a `pfm_target_conditions` entry with only
        /// `pfm_platforms`: "required on macOS"); never holds when no platform is given.
        case platform([String])
    }

    /// The sibling key the condition reads.
    public var target: String
    /// Any of these tests holding makes the condition hold (`pfm_present: false` with `pfm_range_list: [false]`
    /// means "absent or false").
    public var tests: [Test]

    public init(target: String, tests: [Test]) {
        self.target = target
        self.tests = tests
    }

    /// A platform-only condition: it reads no key, only the platform the configuration is checked for.
    public var isPlatformOnly: Bool {
        tests.allSatisfy { if case .platform = $0 { true } else { false } }
    }

    /// How a finding names it: the target key, or `platform macOS`.
    public var label: String {
        let platforms = tests.flatMap { test -> [String] in if case .platform(let names) = test { names } else { [] } }
        return isPlatformOnly ? "platform \(platforms.joined(separator: "/"))" : target
    }

    /// Why it requires a key: `Server set`, or `platform macOS`.
    public var reason: String { isPlatformOnly ? label : "\(target) set" }

    /// Whether it holds among `siblings` for a configuration checked for `platform` (nil: none given).
    public func holds(in siblings: PlistDictionary, platform: String? = nil) -> Bool {
        let value = siblings[target]?.value
        return tests.contains { test in
            switch test {
            case .present(let present): (value != nil) == present
            case .oneOf(let values): value.map { values.contains($0) } ?? false
            case .noneOf(let values): value.map { !values.contains($0) } ?? false
            case .containsAny(let values):
                if case .array(let items)? = value { items.contains { values.contains($0.value) } } else { false }
            case .platform(let names):
                platform.map { given in names.contains { $0.lowercased() == given.lowercased() } } ?? false
            }
        }
    }
}

/// Where a key exists: platforms and OS version ranges (`pfm_platforms`, `pfm_ios_min`, …).
public struct Availability: Sendable {
    /// Platform names as manifests write them (`iOS`, `macOS`, `tvOS`, `watchOS`, `visionOS`); empty = all.
    public var platforms: [String] = []
    /// Per platform (lowercased): first OS version with the key, last one, first one that deprecated it.
    public var introduced: [String: String] = [:]
    public var removed: [String: String] = [:]
    public var deprecated: [String: String] = [:]

    public init() {}

    public var isUnrestricted: Bool { platforms.isEmpty && introduced.isEmpty && removed.isEmpty && deprecated.isEmpty }
}
