import MDMDiagnostics
import PropertyList

// How each part of the schema model is written and read back. Reader and writer of a type sit side by side, so a
// field added to the model is added to both in one place.

extension SchemaWriter {
    mutating func key(_ key: KeySpec) {
        string(key.name)
        array(key.types) { $0.string($1.rawValue) }
        bool(key.required)
        array(key.requiredWhen) { $0.array($1) { $0.condition($1) } }
        array(key.excludedWhen) { $0.array($1) { $0.condition($1) } }
        optional(key.defaultValue) { $0.value($1) }
        optional(key.allowedValues) {
            $0.array($1) { writer, allowed in
                writer.value(allowed.value)
                writer.optional(allowed.title) { $0.string($1) }
            }
        }
        bool(key.allowsCustomValue)
        optional(key.minimum) { $0.bound($1) }
        optional(key.maximum) { $0.bound($1) }
        optional(key.minLength) { $0.int($1) }
        optional(key.maxLength) { $0.int($1) }
        optional(key.pattern) { $0.string($1.source) }
        optional(key.minCount) { $0.int($1) }
        optional(key.maxCount) { $0.int($1) }
        bool(key.uniqueItems)
        array(key.items) { $0.key($1) }
        array(key.additionalValue) { $0.key($1) }
        optional(key.children) { $0.array($1) { $0.key($1) } }
        bool(key.sensitive)
        availability(key.availability)
        optional(key.deprecation) { $0.string($1) }
        optional(key.title) { $0.string($1) }
        optional(key.description) { $0.string($1) }
        position(key.position)
        optional(key.apple) { $0.appleKey($1) }
        optional(key.android) { $0.androidKey($1) }
    }

    mutating func appleSchema(_ facts: AppleSchemaFacts) {
        string(facts.kind.rawValue)
        availability(facts.availability)
        optional(facts.apply) { $0.string($1) }
        optional(facts.content) { $0.string($1) }
        array(facts.responseKeys) { $0.key($1) }
        strings(facts.relatedStatusItems)
    }

    mutating func appleKey(_ facts: AppleKeyFacts) {
        optional(facts.valueType) { $0.string($1) }
        optional(facts.combineType) { $0.string($1) }
        optional(facts.assetTypes) { $0.strings($1) }
        optional(facts.subkeyType) { $0.string($1) }
        optional(facts.assetContentTypes) { $0.strings($1) }
        bool(facts.recursive)
        array(facts.itemAlternatives) { $0.key($1) }
        optional(facts.inherited) { $0.availability($1) }
    }

    mutating func androidKey(_ facts: AndroidKeyFacts) {
        string(facts.restrictionType.rawValue)
        map(facts.localizedTitles) { $0.string($1) }
        map(facts.localizedDescriptions) { $0.string($1) }
        optional(facts.bundleKey) { $0.string($1) }
    }

    /// An availability as its place in the table of distinct ones, plus one; 0 when it says nothing (most keys of
    /// the community formats).
    mutating func availability(_ availability: Availability) {
        guard !availability.isUnrestricted else { return uint(0) }
        // Its per-platform rules go to a table of their own: the availabilities of a payload differ in versions
        // and mostly share their rules, and reading the rules was most of reading an availability.
        var rules = SchemaWriter()
        rules.map(availability.rules) { $0.rules($1) }
        let rulesIndex =
            ruleMapIndex[rules.bytes]
            ?? {
                ruleMapIndex[rules.bytes] = ruleMaps.count
                ruleMaps.append(rules.bytes)
                return ruleMaps.count - 1
            }()
        var value = SchemaWriter()
        value.availabilityValue(availability, rules: rulesIndex)
        if let index = availabilityIndex[value.bytes] { return uint(UInt64(index + 1)) }
        availabilityIndex[value.bytes] = availabilities.count
        availabilities.append(value.bytes)
        uint(UInt64(availabilities.count))
    }

    /// An availability's fields, its rules as their place in the table of distinct rule maps.
    mutating func availabilityValue(_ availability: Availability, rules: Int) {
        strings(availability.platforms)
        map(availability.introduced) { $0.string($1) }
        map(availability.removed) { $0.string($1) }
        map(availability.deprecated) { $0.string($1) }
        map(availability.removedIn) { $0.string($1) }
        strings(availability.unsupported.sorted())
        uint(UInt64(rules))
    }

    mutating func rules(_ rules: PlatformRules) {
        for flag in [
            rules.supervised, rules.requiresDEP, rules.userApprovedMDM, rules.multiple, rules.allowManualInstall,
            rules.deviceChannel, rules.userChannel, rules.alwaysSkippable, rules.beta,
        ] {
            bytes.append(flag.map { $0 ? 2 : 1 } ?? 0)
        }
        optional(rules.accessRights) { $0.string($1) }
        optional(rules.userEnrollment) { $0.string($1.rawValue) }
        optional(rules.sharedIPad) { $0.string($1.rawValue) }
        optional(rules.allowedEnrollments) { $0.strings($1) }
        optional(rules.allowedScopes) { $0.strings($1) }
    }

    mutating func condition(_ condition: Condition) {
        string(condition.target)
        array(condition.tests) { writer, test in
            switch test {
            case .present(let flag): writer.tagged(0) { $0.bool(flag) }
            case .oneOf(let values): writer.tagged(1) { $0.array(values) { $0.value($1) } }
            case .noneOf(let values): writer.tagged(2) { $0.array(values) { $0.value($1) } }
            case .containsAny(let values): writer.tagged(3) { $0.array(values) { $0.value($1) } }
            case .containsNone(let values): writer.tagged(4) { $0.array(values) { $0.value($1) } }
            case .empty(let flag): writer.tagged(5) { $0.bool(flag) }
            case .pushed(let flag): writer.tagged(6) { $0.bool(flag) }
            case .platform(let names): writer.tagged(7) { $0.strings(names) }
            case .notPlatform(let names): writer.tagged(8) { $0.strings(names) }
            }
        }
    }

    mutating func bound(_ bound: Bound) {
        switch bound {
        case .number(let value): tagged(0) { $0.double(value) }
        case .date(let date): tagged(1) { $0.double(date.secondsSince1970) }
        }
    }

    mutating func value(_ value: PlistValue) {
        switch value {
        case .string(let text): tagged(0) { $0.string(text) }
        case .integer(let number): tagged(1) { $0.int64(number) }
        case .real(let number): tagged(2) { $0.double(number) }
        case .boolean(let flag): tagged(3) { $0.bool(flag) }
        case .date(let date): tagged(4) { $0.double(date.secondsSince1970) }
        case .data(let data):
            tagged(5) {
                $0.uint(UInt64(data.count))
                $0.bytes += data
            }
        case .array(let items): tagged(6) { $0.array(items) { $0.node($1) } }
        case .dictionary(let dictionary):
            tagged(7) {
                $0.array(dictionary.entries) { writer, entry in
                    writer.string(entry.key)
                    writer.position(entry.keyPosition)
                    writer.node(entry.value)
                }
            }
        }
    }

    mutating func node(_ node: PlistNode) {
        value(node.value)
        position(node.position)
    }

    mutating func position(_ position: SourcePosition) {
        optional(position.line) { $0.int($1) }
        optional(position.column) { $0.int($1) }
        optional(position.offset) { $0.int($1) }
    }

    private mutating func tagged(_ tag: UInt8, _ write: (inout SchemaWriter) -> Void) {
        bytes.append(tag)
        write(&self)
    }
}

extension SchemaReader {
    mutating func key() throws(CompiledSchemaError) -> KeySpec {
        var key = KeySpec(name: try string())
        key.types = try array { r throws(CompiledSchemaError) in try r.raw(ValueType.self) }
        key.required = try bool()
        key.requiredWhen = try array { r throws(CompiledSchemaError) in try r.conditions() }
        key.excludedWhen = try array { r throws(CompiledSchemaError) in try r.conditions() }
        key.defaultValue = try optional { r throws(CompiledSchemaError) in try r.value() }
        key.allowedValues = try optional { r throws(CompiledSchemaError) in
            try r.array { r throws(CompiledSchemaError) in
                AllowedValue(try r.value(), title: try r.optional { r throws(CompiledSchemaError) in try r.string() })
            }
        }
        key.allowsCustomValue = try bool()
        key.minimum = try optional { r throws(CompiledSchemaError) in try r.bound() }
        key.maximum = try optional { r throws(CompiledSchemaError) in try r.bound() }
        key.minLength = try optional { r throws(CompiledSchemaError) in try r.int() }
        key.maxLength = try optional { r throws(CompiledSchemaError) in try r.int() }
        key.pattern = try optional { r throws(CompiledSchemaError) in
            let source = try r.string()
            do { return try Pattern(source) } catch { throw CompiledSchemaError() }
        }
        key.minCount = try optional { r throws(CompiledSchemaError) in try r.int() }
        key.maxCount = try optional { r throws(CompiledSchemaError) in try r.int() }
        key.uniqueItems = try bool()
        key.items = try keys()
        key.additionalValue = try keys()
        key.children = try optional { r throws(CompiledSchemaError) in try r.keys() }
        key.sensitive = try bool()
        key.availability = try availability()
        key.deprecation = try optionalString()
        key.title = try optionalString()
        key.description = try optionalString()
        key.position = try position()
        key.apple = try optional { r throws(CompiledSchemaError) in try r.appleKey() }
        key.android = try optional { r throws(CompiledSchemaError) in try r.androidKey() }
        return key
    }

    mutating func appleSchema() throws(CompiledSchemaError) -> AppleSchemaFacts {
        var facts = AppleSchemaFacts(kind: try raw(AppleSchemaKind.self), availability: try availability())
        facts.apply = try optionalString()
        facts.content = try optionalString()
        facts.responseKeys = try keys()
        facts.relatedStatusItems = try strings()
        return facts
    }

    mutating func appleKey() throws(CompiledSchemaError) -> AppleKeyFacts {
        var facts = AppleKeyFacts()
        facts.valueType = try optionalString()
        facts.combineType = try optionalString()
        facts.assetTypes = try optional { r throws(CompiledSchemaError) in try r.strings() }
        facts.subkeyType = try optionalString()
        facts.assetContentTypes = try optional { r throws(CompiledSchemaError) in try r.strings() }
        facts.recursive = try bool()
        facts.itemAlternatives = try keys()
        facts.inherited = try optional { r throws(CompiledSchemaError) in try r.availability() }
        return facts
    }

    mutating func androidKey() throws(CompiledSchemaError) -> AndroidKeyFacts {
        var facts = AndroidKeyFacts(restrictionType: try raw(AndroidKeyFacts.RestrictionType.self))
        facts.localizedTitles = try map { r throws(CompiledSchemaError) in try r.string() }
        facts.localizedDescriptions = try map { r throws(CompiledSchemaError) in try r.string() }
        facts.bundleKey = try optionalString()
        return facts
    }

    mutating func availability() throws(CompiledSchemaError) -> Availability {
        let index = try uint()
        guard index > 0 else { return Availability() }
        guard index <= UInt64(availabilities.count) else { throw CompiledSchemaError() }
        return availabilities[Int(index - 1)]
    }

    mutating func availabilityValue() throws(CompiledSchemaError) -> Availability {
        var fields = Availability.Fields()
        fields.platforms = try strings()
        fields.introduced = try map { r throws(CompiledSchemaError) in try r.string() }
        fields.removed = try map { r throws(CompiledSchemaError) in try r.string() }
        fields.deprecated = try map { r throws(CompiledSchemaError) in try r.string() }
        fields.removedIn = try map { r throws(CompiledSchemaError) in try r.string() }
        fields.unsupported = Set(try strings())
        let rules = try uint()
        guard rules < UInt64(ruleMaps.count) else { throw CompiledSchemaError() }
        fields.rules = ruleMaps[Int(rules)]
        return Availability(fields)
    }

    /// A map of per-platform rules, as the table of distinct ones holds it.
    mutating func ruleMap() throws(CompiledSchemaError) -> [String: PlatformRules] {
        try map { r throws(CompiledSchemaError) in try r.rules() }
    }

    mutating func rules() throws(CompiledSchemaError) -> PlatformRules {
        var rules = PlatformRules()
        (rules.supervised, rules.requiresDEP, rules.userApprovedMDM) = (try flag(), try flag(), try flag())
        (rules.multiple, rules.allowManualInstall, rules.deviceChannel) = (try flag(), try flag(), try flag())
        (rules.userChannel, rules.alwaysSkippable, rules.beta) = (try flag(), try flag(), try flag())
        rules.accessRights = try optionalString()
        rules.userEnrollment = try optional { r throws(CompiledSchemaError) in try r.raw(EnrollmentMode.self) }
        rules.sharedIPad = try optional { r throws(CompiledSchemaError) in try r.raw(EnrollmentMode.self) }
        rules.allowedEnrollments = try optional { r throws(CompiledSchemaError) in try r.strings() }
        rules.allowedScopes = try optional { r throws(CompiledSchemaError) in try r.strings() }
        return rules
    }

    private mutating func flag() throws(CompiledSchemaError) -> Bool? {
        switch try byte() {
        case 0: nil
        case 1: false
        case 2: true
        default: throw CompiledSchemaError()
        }
    }

    mutating func conditions() throws(CompiledSchemaError) -> [Condition] {
        try array { r throws(CompiledSchemaError) in
            let target = try r.string()
            let tests = try r.array { r throws(CompiledSchemaError) -> Condition.Test in
                switch try r.byte() {
                case 0: .present(try r.bool())
                case 1: .oneOf(try r.values())
                case 2: .noneOf(try r.values())
                case 3: .containsAny(try r.values())
                case 4: .containsNone(try r.values())
                case 5: .empty(try r.bool())
                case 6: .pushed(try r.bool())
                case 7: .platform(try r.strings())
                case 8: .notPlatform(try r.strings())
                default: throw CompiledSchemaError()
                }
            }
            return Condition(target: target, tests: tests)
        }
    }

    mutating func bound() throws(CompiledSchemaError) -> Bound {
        switch try byte() {
        case 0: .number(try double())
        case 1: .date(PlistDate(secondsSince1970: try double()))
        default: throw CompiledSchemaError()
        }
    }

    mutating func value() throws(CompiledSchemaError) -> PlistValue {
        switch try byte() {
        case 0: return .string(try string())
        case 1: return .integer(try int64())
        case 2: return .real(try double())
        case 3: return .boolean(try bool())
        case 4: return .date(PlistDate(secondsSince1970: try double()))
        case 5:
            let count = try count()
            defer { offset += count }
            return .data(Array(bytes[offset..<offset + count]))
        case 6: return .array(try array { r throws(CompiledSchemaError) in try r.node() })
        case 7:
            let entries = try array { r throws(CompiledSchemaError) in
                let key = try r.string()
                let keyPosition = try r.position()
                return PlistDictionary.Entry(key: key, keyPosition: keyPosition, value: try r.node())
            }
            return .dictionary(PlistDictionary(entries))
        default: throw CompiledSchemaError()
        }
    }

    mutating func node() throws(CompiledSchemaError) -> PlistNode {
        let value = try value()
        return PlistNode(value, at: try position())
    }

    mutating func position() throws(CompiledSchemaError) -> SourcePosition {
        let line = try optional { r throws(CompiledSchemaError) in try r.int() }
        let column = try optional { r throws(CompiledSchemaError) in try r.int() }
        return SourcePosition(
            line: line, column: column, offset: try optional { r throws(CompiledSchemaError) in try r.int() })
    }

    private mutating func keys() throws(CompiledSchemaError) -> [KeySpec] {
        try array { r throws(CompiledSchemaError) in try r.key() }
    }

    private mutating func values() throws(CompiledSchemaError) -> [PlistValue] {
        try array { r throws(CompiledSchemaError) in try r.value() }
    }

    private mutating func optionalString() throws(CompiledSchemaError) -> String? {
        try optional { r throws(CompiledSchemaError) in try r.string() }
    }
}
