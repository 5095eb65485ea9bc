/// A path to a value inside a plist: keys joined by dots, `[n]` for array items (`Accounts[2].Server`).
///
/// A key that itself holds a dot, bracket or quote, or is empty, is written `["com.example.key"]` so the
/// path stays unambiguous.
public struct KeyPath: Sendable, Hashable, CustomStringConvertible {
    /// One step down: a dictionary key or an array index.
    public enum Component: Sendable, Hashable {
        /// The value of a key in a dictionary.
        case key(String)
        /// The item at a 0-based index in an array.
        case index(Int)
    }

    /// The steps from the root, outermost first.
    public var components: [Component]

    /// The path of `components`.
    public init(_ components: [Component] = []) { self.components = components }

    /// The path of the root value itself.
    public static let root = KeyPath()

    /// The path one step further down.
    public func appending(_ component: Component) -> KeyPath { KeyPath(components + [component]) }
    /// The path of `key` in the dictionary at this path.
    public func appending(key: String) -> KeyPath { appending(.key(key)) }
    /// The path of item `index` in the array at this path.
    public func appending(index: Int) -> KeyPath { appending(.index(index)) }

    /// True at the root.
    public var isRoot: Bool { components.isEmpty }

    /// The written path; empty at the root.
    public var description: String {
        var out = ""
        for component in components {
            switch component {
            case .index(let index): out += "[\(index)]"
            case .key(let key):
                if Self.needsQuoting(key) {
                    out += "[\"" + key.replacingQuotes() + "\"]"
                } else {
                    if !out.isEmpty { out += "." }
                    out += key
                }
            }
        }
        return out
    }

    /// Reads a path written by `description` back into components; nil when it is not in that form.
    public init?(parsing text: String) {
        var components: [Component] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var key = ""
        func flush() {
            if !key.isEmpty { components.append(.key(key)) }
            key = ""
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "." {
                flush()
                index += 1
            } else if scalar == "[" {
                flush()
                index += 1
                if index < scalars.count, scalars[index] == "\"" {
                    index += 1
                    var quoted = ""
                    while index < scalars.count, scalars[index] != "\"" {
                        if scalars[index] == "\\", index + 1 < scalars.count {
                            index += 1
                            switch scalars[index] {
                            case "n": quoted.append("\n")
                            case "r": quoted.append("\r")
                            case "t": quoted.append("\t")
                            default: quoted.unicodeScalars.append(scalars[index])
                            }
                        } else {
                            quoted.unicodeScalars.append(scalars[index])
                        }
                        index += 1
                    }
                    guard index + 1 < scalars.count, scalars[index + 1] == "]" else { return nil }
                    components.append(.key(quoted))
                    index += 2
                } else {
                    var digits = ""
                    while index < scalars.count, scalars[index] != "]" {
                        digits.unicodeScalars.append(scalars[index])
                        index += 1
                    }
                    guard let number = Int(digits), index < scalars.count else { return nil }
                    components.append(.index(number))
                    index += 1
                }
            } else {
                key.unicodeScalars.append(scalar)
                index += 1
            }
        }
        flush()
        self.components = components
    }

    /// The written path, or nil at the root (the form diagnostics carry).
    public var diagnosticValue: String? { isRoot ? nil : description }

    private static func needsQuoting(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, let last = key.unicodeScalars.last else { return true }
        return first.properties.isWhitespace || last.properties.isWhitespace
            || key.utf8.contains { $0 < 0x20 || $0 == 0x2E || $0 == 0x5B || $0 == 0x5D || $0 == 0x22 || $0 == 0x5C }
    }
}

extension String {
    /// The key with quotes, backslashes and control characters escaped as in a JSON string.
    fileprivate func replacingQuotes() -> String {
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
