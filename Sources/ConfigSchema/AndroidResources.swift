import MDMDiagnostics
import PropertyList

/// The value resources of an Android app (`res/values*/*.xml`) that restrictions refer to: strings, booleans,
/// integers and arrays, by locale.
///
/// Only folders whose qualifiers name a language (`values`, `values-fr`, `values-fr-rCA`, `values-b+sr+Latn`) are
/// read; `values-night` or `values-v21` hold nothing a restriction's title needs.
public struct AndroidResources: Sendable {
    /// The `res/` folder read.
    public var folder: String
    /// Scalar resources by locale (`""` for the default `values/`), then by `type/name` (`string/server_title`).
    public var scalars: [String: [String: String]] = [:]
    /// Array resources of the default locale by name (`string-array`, `array` and `integer-array` alike), each item
    /// with its references resolved.
    public var arrays: [String: [String]] = [:]
    /// Findings of the resource files themselves (a file that is not well-formed).
    public var diagnostics: [Diagnostic] = []

    /// No resources yet, of the `res/` folder `folder`.
    public init(folder: String) { self.folder = folder }

    /// The resources of `folder` (an app's `res/`).
    public static func load(from folder: String, readerOptions: PlistReaderOptions = PlistReaderOptions())
        -> AndroidResources
    {
        var resources = AndroidResources(folder: folder)
        var rawArrays: [String: [String]] = [:]
        for name in InputFile.entries(of: folder).sorted() where name == "values" || name.hasPrefix("values-") {
            guard let locale = locale(ofFolder: name) else { continue }
            let path = folder + "/" + name
            for file in InputFile.entries(of: path).sorted() where file.hasSuffix(".xml") {
                let filePath = path + "/" + file
                guard case .bytes(let bytes)? = try? InputFile.read(filePath, limit: readerOptions.maxInputSize) else {
                    continue
                }
                let document = XMLElementReader(options: readerOptions).read(bytes, file: filePath)
                resources.diagnostics += document.diagnostics
                guard let root = document.root, root.name == "resources" else { continue }
                for element in root.children {
                    guard let resourceName = element.attribute("name") else { continue }
                    switch element.name {
                    case "string", "bool", "integer":
                        resources.scalars[locale, default: [:]][element.name + "/" + resourceName] = unescape(
                            element.allText)
                    case "item" where element.attribute("type") != nil:
                        resources.scalars[locale, default: [:]][element.attribute("type")! + "/" + resourceName] =
                            unescape(element.allText)
                    case "string-array", "array", "integer-array" where locale.isEmpty:
                        rawArrays[resourceName] = element.children(named: "item").map { unescape($0.allText) }
                    default: break
                    }
                }
            }
        }
        for (name, items) in rawArrays {
            resources.arrays[name] = items.map { item in
                guard let reference = AndroidReference(item), case .value(let type, let target) = reference else {
                    return item
                }
                return resources.scalars[""]?[type + "/" + target] ?? item
            }
        }
        return resources
    }

    /// The text of `@type/name` in the default locale.
    public func value(_ type: String, _ name: String) -> String? { scalars[""]?[type + "/" + name] }

    /// The text of `@type/name` in every other locale that defines it, by locale.
    public func localized(_ type: String, _ name: String) -> [String: String] {
        var texts: [String: String] = [:]
        for (locale, table) in scalars where !locale.isEmpty {
            if let text = table[type + "/" + name] { texts[locale] = text }
        }
        return texts
    }

    /// The locale a `values…` folder holds (`""` for `values`), or nil when its qualifiers name no language.
    static func locale(ofFolder name: String) -> String? {
        let qualifiers = name.split(separator: "-").dropFirst().map(String.init)
        if qualifiers.isEmpty { return "" }
        var rest = qualifiers.drop { $0.hasPrefix("mcc") || $0.hasPrefix("mnc") }
        guard let first = rest.first else { return nil }
        if first.hasPrefix("b+") {
            return first.dropFirst(2).split(separator: "+").joined(separator: "-")
        }
        guard (2...3).contains(first.count), first.allSatisfy({ $0.isLowercase && $0.isASCII }) else { return nil }
        rest = rest.dropFirst()
        if let region = rest.first, region.count == 3, region.hasPrefix("r") {
            return first + "-" + region.dropFirst()
        }
        return first
    }

    /// A resource's text as Android reads it: surrounding whitespace trimmed and runs of whitespace collapsed outside
    /// double quotes, the quotes removed, and backslash escapes (`\n`, `\t`, `\'`, `\"`, `\@`, `\uXXXX`) decoded.
    static func unescape(_ raw: String) -> String {
        var output = ""
        var quoted = false
        var pendingSpace = false
        var characters = raw.makeIterator()
        while let character = characters.next() {
            if character == "\\" {
                guard let next = characters.next() else { break }
                if pendingSpace && !output.isEmpty { output.append(" ") }
                pendingSpace = false
                switch next {
                case "n": output.append("\n")
                case "t": output.append("\t")
                case "u":
                    var hex = ""
                    for _ in 0..<4 { if let digit = characters.next() { hex.append(digit) } }
                    if let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) { output.append(Character(scalar)) }
                default: output.append(next)
                }
            } else if character == "\"" {
                quoted.toggle()
            } else if character.isWhitespace && !quoted {
                pendingSpace = true
            } else {
                if pendingSpace && !output.isEmpty { output.append(" ") }
                pendingSpace = false
                output.append(character)
            }
        }
        return output
    }
}

/// A resource reference as written in an attribute: `@string/name`, `@array/name`, `@null`.
enum AndroidReference: Equatable {
    /// `@type/name` of the app's own resources.
    case value(type: String, name: String)
    /// `@null`: no value.
    case null
    /// A reference to the platform's or another package's resources (`@android:string/ok`), which no app file holds.
    case foreign(String)

    /// The reference `text` makes, or nil when it is a literal (`\@` escapes a literal at sign).
    init?(_ text: String) {
        guard text.hasPrefix("@") else { return nil }
        if text == "@null" {
            self = .null
            return
        }
        let body = text.dropFirst().drop { $0 == "+" || $0 == "*" }
        guard let slash = body.firstIndex(of: "/") else {
            self = .foreign(text)
            return
        }
        let type = body[..<slash]
        if type.contains(":") {
            self = .foreign(text)
            return
        }
        self = .value(type: String(type), name: String(body[body.index(after: slash)...]))
    }
}

extension XMLElement {
    /// The element's text with its children's text after it (inline markup such as `<b>` or `<xliff:g>` in a string).
    var allText: String { children.reduce(text) { $0 + $1.allText } }
}
