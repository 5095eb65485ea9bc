import MDMDiagnostics
import PropertyList

extension ConfigSchema {
    /// The schema as JSON for clients and consoles (`GET /v1/apps/{id}/schema`): the id, format, title and every
    /// key with its types, requirement, default, constraints and presentation (title, description), nested keys
    /// under `keys` and array items under `items`. Absent constraints are left out; values of sensitive keys'
    /// defaults are not shown.
    public var json: JSONValue {
        .object([
            ("id", .string(id)), ("format", .string(format.rawValue)), ("title", .optional(title)),
            ("keys", .array(keys.map { $0.json })),
        ])
    }
}

extension KeySpec {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("name", .string(name)), ("types", .array(types.map { .string($0.rawValue) })),
            ("required", .bool(required)),
        ]
        func add(_ key: String, _ value: JSONValue?) { if let value { members.append((key, value)) } }
        add("title", title.map(JSONValue.string))
        add("description", description.map(JSONValue.string))
        if let defaultValue { add("default", sensitive ? .string("<redacted>") : PlistWriter.jsonValue(defaultValue)) }
        if let allowedValues {
            add(
                "allowedValues",
                .array(
                    allowedValues.map { allowed in
                        .object([("value", PlistWriter.jsonValue(allowed.value)), ("title", .optional(allowed.title))])
                    }))
            add("allowsCustomValue", .bool(allowsCustomValue))
        }
        add("minimum", minimum.map { JSONValue.bound($0) })
        add("maximum", maximum.map { JSONValue.bound($0) })
        add("minLength", minLength.map(JSONValue.integer))
        add("maxLength", maxLength.map(JSONValue.integer))
        add("pattern", pattern.map { .string($0.source) })
        add("minCount", minCount.map(JSONValue.integer))
        add("maxCount", maxCount.map(JSONValue.integer))
        if uniqueItems { add("uniqueItems", .bool(true)) }
        if sensitive { add("sensitive", .bool(true)) }
        add("deprecated", deprecation.map(JSONValue.string))
        if !availability.isUnrestricted {
            func versions(_ map: [String: String]) -> JSONValue {
                .object(map.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
            }
            add(
                "availability",
                .object([
                    ("platforms", .array(availability.platforms.map(JSONValue.string))),
                    ("introduced", versions(availability.introduced)), ("removed", versions(availability.removed)),
                    ("deprecated", versions(availability.deprecated)),
                ]))
        }
        if let children { add("keys", .array(children.map { $0.json })) }
        if let free = additionalValue.first { add("additionalKeys", free.json) }
        if !items.isEmpty { add("items", .array(items.map { $0.json })) }
        return .object(members)
    }
}

extension JSONValue {
    fileprivate static func bound(_ bound: Bound) -> JSONValue {
        switch bound {
        case .number: .number(bound.description)
        case .date(let date): .string(date.iso8601)
        }
    }
}
