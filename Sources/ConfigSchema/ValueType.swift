import PropertyList

/// The value types a schema can declare for a key.
public enum ValueType: String, Sendable, Hashable, CaseIterable {
    /// `<string>`, a JSON string.
    case string
    /// `<integer>`, a whole JSON number.
    case integer
    /// `<real>`, any JSON number (an integer is a valid real).
    case real
    /// `<true/>` or `<false/>`.
    case boolean
    /// `<date>`.
    case date
    /// `<data>` (base64).
    case data
    /// `<array>`.
    case array
    /// `<dict>`, a JSON object.
    case dictionary

    /// True when `value` has this type. An integer is accepted where a real is declared; nothing else is
    /// coerced (a `<string>true</string>` is not a boolean).
    public func accepts(_ value: PlistValue) -> Bool {
        switch (self, value) {
        case (.string, .string), (.integer, .integer), (.real, .real), (.real, .integer), (.boolean, .boolean),
            (.date, .date), (.data, .data), (.array, .array), (.dictionary, .dictionary):
            true
        default: false
        }
    }

    /// The plist element that carries this type, as users write it.
    public var element: String {
        switch self {
        case .boolean: "<true/> or <false/>"
        case .dictionary: "<dict>"
        default: "<\(rawValue)>"
        }
    }

    /// The JSON form that carries this type, as users write it.
    public var jsonForm: String {
        switch self {
        case .boolean: "true or false"
        case .integer: "a whole number"
        case .real: "a number"
        case .string: "a string in double quotes"
        case .array: "an array [ … ]"
        case .dictionary: "an object { … }"
        case .date: "a date string"
        case .data: "a base64 string"
        }
    }

    /// The type of a value, named as schemas name types.
    public static func of(_ value: PlistValue) -> ValueType {
        switch value {
        case .string: .string
        case .integer: .integer
        case .real: .real
        case .boolean: .boolean
        case .date: .date
        case .data: .data
        case .array: .array
        case .dictionary: .dictionary
        }
    }
}
