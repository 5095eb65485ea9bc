import MDMDiagnostics
import PropertyList

/// What a schema says about one key: its type, presence, allowed values and constraints, nested keys,
/// and the text an admin sees. Every importer compiles into this one model; the validator reads only it.
public struct KeySpec: Sendable {
    /// The key as the configuration writes it (empty for an array's item spec).
    public var name: String
    /// Allowed types (a union when more than one); empty means any type.
    public var types: [ValueType]
    /// The key must be present (inside a parent that is present), and not an empty string or array.
    public var required: Bool
    /// Required when any of these condition sets holds (`pfm_conditionals`).
    public var requiredWhen: [[Condition]]
    /// Forbidden when any of these condition sets holds (`pfm_exclude`).
    public var excludedWhen: [[Condition]]
    /// The value an absent key stands for, when the schema gives one.
    public var defaultValue: PlistValue?
    /// Allowed values with their titles; nil when any value is allowed.
    public var allowedValues: [AllowedValue]?
    /// Custom values are allowed besides the listed ones (`pfm_range_list_allow_custom_value`).
    public var allowsCustomValue: Bool
    /// Numeric bounds (integer, real) or date bounds, inclusive.
    public var minimum: Bound?
    /// The upper numeric or date bound, inclusive.
    public var maximum: Bound?
    /// String length bounds in characters, inclusive.
    public var minLength: Int?
    /// The longest string allowed, in characters.
    public var maxLength: Int?
    /// A regular expression the whole string must match.
    public var pattern: Pattern?
    /// Array element count bounds, inclusive.
    public var minCount: Int?
    /// The most items an array may hold.
    public var maxCount: Int?
    /// No two items of the array may be equal.
    public var uniqueItems: Bool
    /// The spec of every array item.
    public var items: [KeySpec]
    /// The spec of the value of every key of a dictionary that `children` does not name: a dictionary of
    /// free-form keys (a ProfileManifest's `{{key}}`/`{{value}}` pair). Empty when there is none.
    public var additionalValue: [KeySpec] = []
    /// The members of a dictionary; nil when any members are allowed.
    public var children: [KeySpec]? {
        didSet { childPositions = Self.index(children) }
    }
    /// Where each child is in `children`, by name (the first, when a schema declares one twice).
    private(set) var childPositions: [String: Int] = [:]
    /// The value is a secret: never quoted in findings, redacted on the admin page and in diffs.
    public var sensitive: Bool
    /// The platforms and OS versions the key exists on.
    public var availability: Availability
    /// Why the key is deprecated, when it is.
    public var deprecation: String?
    /// The name an admin sees for the key.
    public var title: String?
    /// What the schema says the key is for.
    public var description: String?
    /// Where the key is declared in its schema file.
    public var position: SourcePosition
    /// What Apple's schemas add (the string's format, how it combines, asset types); nil for the other formats.
    public var apple: AppleKeyFacts?
    /// What an Android `<restriction>` adds (its restriction type, localized titles); nil for the other formats.
    public var android: AndroidKeyFacts?

    /// A key of `types` (empty: any type) with no constraint yet, declared at `position`.
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
        guard let children, !children.isEmpty else { return [:] }
        var positions: [String: Int] = [:]
        positions.reserveCapacity(children.count)
        // By index, reading only the name: iterating the specs copied each one (a retain per field), and building this
        // index was a third of merging a payload's schema with the common payload keys.
        for offset in children.indices where positions[children[offset].name] == nil {
            positions[children[offset].name] = offset
        }
        return positions
    }
}

extension PlistValue {
    /// The value as a finding quotes it: a string in quotes (cut at 40 characters), a number, a boolean or date as
    /// written, a container by its type.
    var shortText: String {
        switch self {
        case .string(let text): text.count > 40 ? "'\(text.prefix(40))…'" : "'\(text)'"
        case .integer(let number): String(number)
        case .real(let number): PlistWriter.realText(number)
        case .boolean(let flag): flag ? "true" : "false"
        case .date(let date): date.iso8601
        default: "the \(typeName)"
        }
    }
}

/// One allowed value and the title a console shows for it.
public struct AllowedValue: Sendable {
    /// The value.
    public var value: PlistValue
    /// What a console shows for it, when the schema names it.
    public var title: String?

    /// `value`, titled `title`.
    public init(_ value: PlistValue, title: String? = nil) {
        self.value = value
        self.title = title
    }
}

/// A numeric or date bound.
public enum Bound: Sendable, Equatable, CustomStringConvertible {
    /// A bound of an integer or real.
    case number(Double)
    /// A bound of a date.
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
    /// What is asked of the target's value.
    public enum Test: Sendable {
        /// The target is present (true) or absent (false).
        case present(Bool)
        /// The target is present and equal to one of these.
        case oneOf([PlistValue])
        /// The target is present and equal to none of these.
        case noneOf([PlistValue])
        /// The target is an array holding at least one of these, or a single value equal to one of them (a pick
        /// from a list).
        case containsAny([PlistValue])
        /// The target is absent, or neither an array holding any of these nor a value equal to one
        /// (`pfm_n_contains_any`).
        case containsNone([PlistValue])
        /// The target is absent or empty (true), or present and not empty (false) (`pfm_value_empty`): an empty
        /// string, array or dictionary.
        case empty(Bool)
        /// The configuration is (true) or is not (false) delivered by an MDM in a configuration profile: its root
        /// has the payload envelope (`PayloadType`, `PayloadIdentifier` or `PayloadUUID`). `pfm_require: push` and
        /// `pfm_distribution: [push]`; a bare preferences file is not pushed.
        case pushed(Bool)
        /// The configuration is for one of these platforms (a `pfm_target_conditions` entry with only
        /// `pfm_platforms`: "required on macOS"); never holds when no platform is given.
        case platform([String])
        /// The configuration is for a platform other than these (`pfm_n_platforms`); never holds when no platform is
        /// given.
        case notPlatform([String])
    }

    /// The key the condition reads: a sibling's name, or a key path from the configuration's root
    /// (`PlatformSSO.AuthenticationMethod`), tried from the root first and then from the siblings.
    public var target: String
    /// Any of these tests holding makes the condition hold (`pfm_present: false` with `pfm_range_list: [false]`
    /// means "absent or false").
    public var tests: [Test]

    /// A condition on the sibling key `target`.
    public init(target: String, tests: [Test]) {
        self.target = target
        self.tests = tests
    }

    /// A condition on how the configuration is delivered (`pfm_require: push`, `pfm_distribution`).
    public static func pushed(_ pushed: Bool) -> Condition { Condition(target: "", tests: [.pushed(pushed)]) }

    /// A platform-only condition: it reads no key, only the platform the configuration is checked for.
    public var isPlatformOnly: Bool {
        tests.allSatisfy {
            switch $0 {
            case .platform, .notPlatform: true
            default: false
            }
        }
    }

    /// How a finding names it: the target key, `platform macOS`, or `pushed by an MDM`.
    public var label: String {
        if isPlatformOnly {
            return tests.map { test -> String in
                switch test {
                case .platform(let names): "platform \(names.joined(separator: "/"))"
                case .notPlatform(let names): "a platform other than \(names.joined(separator: "/"))"
                default: ""
                }
            }.joined(separator: " or ")
        }
        if target.isEmpty, case .pushed(let pushed)? = tests.first {
            return pushed ? "pushed by an MDM" : "installed manually"
        }
        return target
    }

    /// Why it requires a key: `Server set`, `ProxyType is 'Manual'`, `platform macOS` or `pushed by an MDM`.
    public var reason: String {
        guard !target.isEmpty else { return label }
        func list(_ values: [PlistValue]) -> String { values.map(\.shortText).joined(separator: ", ") }
        return tests.map { test -> String in
            switch test {
            case .present(let present): present ? "\(target) set" : "\(target) absent"
            case .oneOf(let values):
                values.count == 1 ? "\(target) is \(list(values))" : "\(target) is one of \(list(values))"
            case .noneOf(let values): "\(target) is not \(list(values))"
            case .containsAny(let values): "\(target) holds \(list(values))"
            case .containsNone(let values): "\(target) holds none of \(list(values))"
            case .empty(let empty): empty ? "\(target) empty" : "\(target) not empty"
            case .pushed, .platform, .notPlatform: "\(target) set"
            }
        }.joined(separator: " or ")
    }

    /// True for a bare "target set" that another condition of `set` on the same target already implies
    /// (`ProxyType` set beside `ProxyType` is 'Manual'): a reason says only the stronger one.
    func isImplied(by set: [Condition]) -> Bool {
        guard !target.isEmpty, tests.count == 1, case .present(true) = tests[0] else { return false }
        return set.contains { other in
            other.target == target && !other.tests.contains { if case .present = $0 { true } else { false } }
        }
    }

    static let payloadEnvelope = ["PayloadType", "PayloadIdentifier", "PayloadUUID"]

    /// Whether it holds among `siblings` of a configuration whose root dictionary is `root`, checked for
    /// `platform` (nil: none given).
    public func holds(in siblings: PlistDictionary, root: PlistDictionary? = nil, platform: String? = nil) -> Bool {
        let value = resolve(siblings: siblings, root: root)
        return tests.contains { test in
            switch test {
            case .present(let present): (value != nil) == present
            case .oneOf(let values): value.map { values.contains($0) } ?? false
            case .noneOf(let values): value.map { !values.contains($0) } ?? false
            case .containsAny(let values):
                switch value {
                case .array(let items)?: items.contains { values.contains($0.value) }
                case let single?: values.contains(single)
                case nil: false
                }
            case .containsNone(let values):
                switch value {
                case .array(let items)?: !items.contains { values.contains($0.value) }
                case let single?: !values.contains(single)
                case nil: true
                }
            case .empty(let empty):
                switch value {
                case nil: empty
                case .string(let text)?: text.isEmpty == empty
                case .array(let items)?: items.isEmpty == empty
                case .dictionary(let dict)?: dict.isEmpty == empty
                default: !empty
                }
            case .pushed(let pushed):
                Self.payloadEnvelope.contains { (root ?? siblings)[$0] != nil } == pushed
            case .platform(let names):
                platform.map { given in names.contains { $0.lowercased() == given.lowercased() } } ?? false
            case .notPlatform(let names):
                platform.map { given in !names.contains { $0.lowercased() == given.lowercased() } } ?? false
            }
        }
    }

    /// The target's value: a plain name among the siblings; a dotted key path from the root, else from the
    /// siblings. Through an array a path goes into the first item that has the next key.
    func resolve(siblings: PlistDictionary, root: PlistDictionary?) -> PlistValue? {
        if let value = siblings[target]?.value { return value }
        let parts = target.split(separator: ".").map(String.init)
        guard parts.count > 1 else { return nil }
        func walk(_ start: PlistDictionary) -> PlistValue? {
            var current: PlistValue = .dictionary(start)
            for part in parts {
                switch current {
                case .dictionary(let dict):
                    guard let next = dict[part]?.value else { return nil }
                    current = next
                case .array(let items):
                    guard
                        let next = items.lazy.compactMap({ item -> PlistValue? in
                            if case .dictionary(let dict) = item.value { dict[part]?.value } else { nil }
                        }).first
                    else { return nil }
                    current = next
                default: return nil
                }
            }
            return current
        }
        return root.flatMap(walk) ?? walk(siblings)
    }
}

/// Where a key exists: platforms and OS version ranges (`pfm_platforms`, `pfm_ios_min`, …).
///
/// Its fields (``Fields``) are read and written as its own (`availability.introduced["ios"]`). They live in one
/// shared storage until a copy is changed: every key of a schema has an availability, the validator reads it for
/// every key it checks, and most keys of Apple's schemas share their payload's, so a copy is one retain and telling a
/// key's from its payload's is one pointer comparison.
@dynamicMemberLookup
public struct Availability: Sendable, Equatable {
    /// What an availability holds.
    public struct Fields: Sendable, Equatable {
        /// Platform names as manifests write them (`iOS`, `macOS`, `tvOS`, `watchOS`, `visionOS`); empty = all.
        public var platforms: [String] = []
        /// Per platform (lowercased): first OS version with the key, last one, first one that deprecated it.
        public var introduced: [String: String] = [:]
        /// Per platform (lowercased): the last OS version with the key, as ProfileManifests write it.
        public var removed: [String: String] = [:]
        /// Per platform (lowercased): the first OS version that deprecated the key.
        public var deprecated: [String: String] = [:]
        /// Per platform (lowercased): the first OS version without the key (Apple's `removed`; `removed` above is
        /// the last version with it, as ProfileManifests write it).
        public var removedIn: [String: String] = [:]
        /// Platforms (lowercased) Apple's schema marks `n/a`: never available there.
        public var unsupported: Set<String> = []
        /// Per platform (lowercased): what Apple's schemas say beyond versions (supervision, enrollment, channels).
        public var rules: [String: PlatformRules] = [:]
    }

    /// One of the fields, read from the shared storage; a change makes a storage of this availability's own.
    public subscript<Value>(dynamicMember field: WritableKeyPath<Fields, Value>) -> Value {
        get { storage.fields[keyPath: field] }
        set {
            var fields = storage.fields
            fields[keyPath: field] = newValue
            storage = Storage(fields)
        }
    }

    /// Available everywhere, with no rule.
    public init() { storage = Self.unrestricted }

    /// An availability of `fields`, made at once (setting the fields one by one makes a storage for each).
    public init(_ fields: Fields) { storage = Storage(fields) }

    /// True when nothing limits where the key is available.
    public var isUnrestricted: Bool {
        if storage === Self.unrestricted { return true }
        let fields = storage.fields
        return fields.platforms.isEmpty && fields.introduced.isEmpty && fields.removed.isEmpty
            && fields.removedIn.isEmpty && fields.deprecated.isEmpty && fields.unsupported.isEmpty
            && fields.rules.isEmpty
    }

    /// The same fields: one shared storage, or equal values.
    public static func == (lhs: Availability, rhs: Availability) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// Never changed once made (its fields are a `let`, read without an exclusivity check): a change makes a new one.
    private final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    /// The storage of every availability made with `init()` and not changed since.
    private static let unrestricted = Storage(Fields())

    private var storage: Storage
}

/// What Apple's schemas say of a payload or key on one platform beyond its OS versions (`supportedOS`); nil where
/// the schema says nothing.
public struct PlatformRules: Sendable, Equatable {
    /// Only a supervised device accepts it.
    public var supervised: Bool?
    /// Only a device enrolled through Automated Device Enrollment accepts it.
    public var requiresDEP: Bool?
    /// Only with a user-approved MDM enrollment (macOS).
    public var userApprovedMDM: Bool?
    /// More than one payload of the type may be installed.
    public var multiple: Bool?
    /// A user may install it by hand.
    public var allowManualInstall: Bool?
    /// It may be sent on the device channel (macOS).
    public var deviceChannel: Bool?
    /// It may be sent on the user channel (macOS).
    public var userChannel: Bool?
    /// The Setup Assistant pane of a skip key is always skipped.
    public var alwaysSkippable: Bool?
    /// Apple marks it beta.
    public var beta: Bool?
    /// The MDM access rights a command needs.
    public var accessRights: String?
    /// How it may be used under user enrollment.
    public var userEnrollment: EnrollmentMode?
    /// How it may be used on a shared iPad.
    public var sharedIPad: EnrollmentMode?
    /// Declarative management: the enrollment types and scopes it may be sent to.
    public var allowedEnrollments: [String]?
    /// Declarative management: the scopes (system, user) it may be sent to.
    public var allowedScopes: [String]?

    /// Rules that say nothing.
    public init() {}
}

extension PlatformRules {
    /// Why a payload or key with these rules does not suit a device enrolled as `enrollment`: each finding's code,
    /// severity and reason. `name` is how the finding names what it checks.
    /// `name` is made only for a conflict (it is the key's name in quotes, asked for every key of a profile).
    public func conflicts(with enrollment: Enrollment, name: @autoclosure () -> String, platform: String)
        -> [EnrollmentConflict]
    {
        var found: [EnrollmentConflict] = []
        if supervised == true, !enrollment.isSupervised {
            found.append(
                EnrollmentConflict(
                    code: SchemaCode.needsSupervision, severity: .error,
                    message:
                        "\(name()) works only on supervised \(platform) devices, not with \(enrollment.rawValue) enrollment"
                ))
        }
        if requiresDEP == true, !enrollment.isAutomated {
            found.append(
                EnrollmentConflict(
                    code: SchemaCode.enrollmentForbids, severity: .error,
                    message: "\(name()) needs a device enrolled through Automated Device Enrollment (\(platform))"))
        }
        if let allowed = allowedEnrollments, !allowed.isEmpty,
            !allowed.contains(where: enrollment.declarativeEnrollments.contains)
        {
            found.append(
                EnrollmentConflict(
                    code: SchemaCode.enrollmentForbids, severity: .error,
                    message:
                        "\(name()) is for \(allowed.joined(separator: ", ")) enrollments, not \(enrollment.rawValue) (\(platform))"
                ))
        }
        // Most keys have neither rule: nothing is made for them (this runs for every key of every profile).
        if let userEnrollment {
            found += Self.conflicts(userEnrollment, applies: enrollment == .user, "user enrollment", name, platform)
        }
        if let sharedIPad {
            found += Self.conflicts(sharedIPad, applies: enrollment == .sharedIPad, "a shared iPad", name, platform)
        }
        return found
    }

    /// What one enrollment mode's rule (`mode`, for user enrollment or a shared iPad) says of a device that is
    /// (`applies`) or is not in that mode.
    private static func conflicts(
        _ mode: EnrollmentMode, applies: Bool, _ what: String, _ name: () -> String, _ platform: String
    ) -> [EnrollmentConflict] {
        switch mode {
        case .forbidden where applies:
            [
                EnrollmentConflict(
                    code: SchemaCode.enrollmentForbids, severity: .error,
                    message: "\(name()) is not allowed with \(what) (\(platform))")
            ]
        case .ignored where applies:
            [
                EnrollmentConflict(
                    code: SchemaCode.enrollmentIgnores, severity: .warning,
                    message: "\(name()) is ignored with \(what) (\(platform))")
            ]
        case .required where !applies:
            [
                EnrollmentConflict(
                    code: SchemaCode.enrollmentForbids, severity: .error,
                    message: "\(name()) works only with \(what) (\(platform))")
            ]
        default: []
        }
    }
}

/// A payload or key that does not suit the device's enrollment.
public struct EnrollmentConflict: Sendable, Equatable {
    /// The finding's code (MC2031, MC2054 …).
    public var code: DiagnosticCode
    /// Error, or warning for what the device accepts and ignores.
    public var severity: Severity
    /// What the finding says, naming the key or payload.
    public var message: String
}

/// How the device a configuration is for was enrolled (`--enrollment`): what Apple's schemas judge supervision,
/// user enrollment and shared-iPad rules by.
public enum Enrollment: String, Sendable, CaseIterable {
    /// A supervised device.
    case supervised
    /// Device enrollment, not supervised.
    case device
    /// User enrollment (a personal device; account-driven or profile-based).
    case user
    /// A shared iPad: supervised, enrolled automatically.
    case sharedIPad = "shared-ipad"
    /// Automated Device Enrollment (DEP): supervised.
    case dep

    /// The device is supervised.
    public var isSupervised: Bool { self == .supervised || self == .sharedIPad || self == .dep }
    /// The device came through Automated Device Enrollment.
    public var isAutomated: Bool { self == .dep || self == .sharedIPad }
    /// The names declarative management's `allowed-enrollments` gives this enrollment: a supervised device is
    /// both `supervised` and `device`.
    public var declarativeEnrollments: Set<String> {
        switch self {
        case .supervised, .dep, .sharedIPad: ["supervised", "device"]
        case .device: ["device"]
        case .user: ["user"]
        }
    }
}

/// How a payload or key may be used under user enrollment or on a shared iPad.
public enum EnrollmentMode: String, Sendable, Equatable {
    /// With or without it.
    case allowed
    /// Only with it.
    case required
    /// Never with it: the device rejects the payload.
    case forbidden
    /// Accepted with it, but the device ignores the key.
    case ignored
}

extension Availability {
    /// Why `name` (a key or a payload) does not suit `platform` at `osVersion` on a device enrolled as
    /// `enrollment`: not on the platform, not yet or no longer in that version, deprecated, or against Apple's
    /// supervision and enrollment rules. `strict` (Apple's schemas) makes an unavailable key an error: the device
    /// refuses or drops it; the community formats say it as a warning.
    public func findings(
        name: @autoclosure () -> String, platform: String, osVersion: String?, enrollment: Enrollment?, strict: Bool,
        unavailable: DiagnosticCode = SchemaCode.unavailableKey
    ) -> [EnrollmentConflict] {
        // The fields read from the storage, not one by one through `dynamicMember` (every key checked asks this).
        let fields = storage.fields
        let (platforms, unsupported, rules) = (fields.platforms, fields.unsupported, fields.rules)
        let (introduced, removed, removedIn, deprecated) = (
            fields.introduced, fields.removed, fields.removedIn, fields.deprecated
        )
        let key = Self.isLowercase(platform) ? platform : platform.lowercased()
        let severity: Severity = strict ? .error : .warning
        var found: [EnrollmentConflict] = []
        if unsupported.contains(key)
            || (!platforms.isEmpty && !platforms.contains(where: { Self.equalIgnoringASCIICase($0, key) }))
        {
            let only = platforms.isEmpty ? "" : " (only \(platforms.joined(separator: ", ")))"
            return [
                EnrollmentConflict(
                    code: unavailable, severity: severity, message: "\(name()) is not available on \(platform)\(only)")
            ]
        }
        if let version = osVersion {
            if let introduced = introduced[key], compareVersions(version, introduced) < 0 {
                found.append(
                    EnrollmentConflict(
                        code: unavailable, severity: severity,
                        message: "\(name()) needs \(platform) \(introduced) or later"))
            }
            if let removed = removed[key], compareVersions(version, removed) > 0 {
                found.append(
                    EnrollmentConflict(
                        code: unavailable, severity: severity,
                        message: "\(name()) is not available after \(platform) \(removed)"))
            }
            if let removed = removedIn[key], compareVersions(version, removed) >= 0 {
                found.append(
                    EnrollmentConflict(
                        code: unavailable, severity: severity,
                        message: "\(name()) was removed in \(platform) \(removed)")
                )
            }
            if let deprecated = deprecated[key], compareVersions(version, deprecated) >= 0 {
                found.append(
                    EnrollmentConflict(
                        code: SchemaCode.deprecatedKey, severity: .warning,
                        message: "\(name()) is deprecated since \(platform) \(deprecated)"))
            }
        }
        if let enrollment, let rules = rules[key] {
            found += rules.conflicts(with: enrollment, name: name(), platform: platform)
        }
        return found
    }

    /// Whether `text` has no ASCII capital (it is its own `lowercased()` for the platform names compared here).
    static func isLowercase(_ text: String) -> Bool {
        !text.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    /// `a.lowercased() == lowercase` for ASCII names, without making the lowercased copy: OS support is checked for
    /// every key of a profile, and those copies were a tenth of validating one.
    static func equalIgnoringASCIICase(_ a: String, _ lowercase: String) -> Bool {
        if a.utf8.contains(where: { $0 >= 0x80 }) || lowercase.utf8.contains(where: { $0 >= 0x80 }) {
            return a.lowercased() == lowercase
        }
        guard a.utf8.count == lowercase.utf8.count else { return false }
        return zip(a.utf8, lowercase.utf8).allSatisfy { byte, lower in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == lower
        }
    }
}
