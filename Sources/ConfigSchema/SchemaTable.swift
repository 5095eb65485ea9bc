import PropertyList

/// The key table of a schema: `mdmconf schema show` prints it as text, the admin page as HTML. One row per key,
/// nested keys as `Parent.Child` and `List[].Child`; sensitive defaults are `<redacted>`.
public struct SchemaTable: Sendable {
    /// The schema tabulated.
    public let schema: ConfigSchema

    /// What the table is narrowed to and how many keys are left (`mdmconf schema show --platform`), said in its title
    /// line: `iOS 16, user: 23 of 188 keys`.
    public private(set) var narrowedTo: String?

    /// The table of `schema`.
    public init(_ schema: ConfigSchema) { self.schema = schema }

    /// The table of the keys of `schema` that a device on `platform` (at `osVersion`, enrolled as `enrollment`)
    /// accepts: a key (with the keys inside it) that Apple's schema says is not there yet, removed, `n/a`, or refused
    /// for that enrollment is left out, as is every key when the payload itself is. Keys of the other formats are
    /// narrowed by the OS versions their schema gives.
    public init(_ schema: ConfigSchema, platform: String, osVersion: String?, enrollment: Enrollment?) {
        var narrowed = schema
        func accepts(_ availability: Availability) -> Bool {
            !availability.findings(
                name: "", platform: platform, osVersion: osVersion, enrollment: enrollment, strict: true
            ).contains { $0.severity == .error }
        }
        func keep(_ keys: [KeySpec]) -> [KeySpec] {
            var kept: [KeySpec] = []
            for var key in keys where accepts(key.availability) {
                if let children = key.children { key.children = keep(children) }
                if key.items.count == 1, let children = key.items[0].children { key.items[0].children = keep(children) }
                kept.append(key)
            }
            return kept
        }
        let payload = schema.apple.map { accepts($0.availability) } ?? true
        narrowed.keys = payload ? keep(schema.keys) : []
        self.schema = narrowed
        let enrolled = enrollment.map { ", \($0.rawValue)" } ?? ""
        narrowedTo =
            "\(platform)\(osVersion.map { " " + $0 } ?? "")\(enrolled): \(narrowed.keys.count) of \(schema.keys.count) keys"
            + (payload ? "" : "; the payload itself is not accepted there")
    }

    /// The column names of `rows`.
    public static let header = ["KEY", "TYPE", "REQUIRED", "DEFAULT", "CONSTRAINTS", "DESCRIPTION"]

    /// The rows, without the header.
    public var rows: [[String]] {
        var rows: [[String]] = []
        func add(_ spec: KeySpec, prefix: String) {
            rows.append([
                prefix + spec.name, type(spec), spec.required ? "yes" : (spec.requiredWhen.isEmpty ? "" : "if …"),
                spec.sensitive && spec.defaultValue != nil ? "<redacted>" : value(spec.defaultValue), constraints(spec),
                oneLine(spec.title ?? spec.description ?? ""),
            ])
            if let item = spec.items.first, item.children != nil {
                for child in item.children ?? [] { add(child, prefix: prefix + spec.name + "[].") }
            }
            for child in spec.children ?? [] { add(child, prefix: prefix + spec.name + ".") }
            for free in spec.additionalValue { add(free, prefix: prefix + spec.name + ".") }
        }
        for key in schema.keys { add(key, prefix: "") }
        return rows
    }

    /// The platforms of Apple's schemas, in the columns `render` adds for them.
    public static let platforms = ["iOS", "macOS", "tvOS", "visionOS", "watchOS"]

    /// For Apple's schemas, one cell per platform of ``platforms`` and key (rows in ``rows``' order): the OS version
    /// that introduced the key (inherited from the payload when the key says nothing), `-` where it does not exist,
    /// ` S` when only supervised devices take it, `→V` when version V removed it. Empty for the other formats.
    public var platformRows: [[String]] {
        guard let payload = schema.apple?.availability else { return [] }
        var rows: [[String]] = []
        func add(_ spec: KeySpec) {
            rows.append(Self.platforms.map { Self.cell($0, key: spec.availability, payload: payload) })
            if let item = spec.items.first, item.children != nil { for child in item.children ?? [] { add(child) } }
            for child in spec.children ?? [] { add(child) }
            for free in spec.additionalValue { add(free) }
        }
        for key in schema.keys { add(key) }
        return rows
    }

    private static func cell(_ platform: String, key: Availability, payload: Availability) -> String {
        let name = platform.lowercased()
        if key.unsupported.contains(name) || payload.unsupported.contains(name) { return "-" }
        guard let introduced = key.introduced[name] ?? payload.introduced[name] else { return "" }
        var text = introduced
        if (key.rules[name]?.supervised ?? payload.rules[name]?.supervised) == true { text += " S" }
        if let removed = key.removedIn[name] ?? payload.removedIn[name] { text += " →\(removed)" }
        return text
    }

    /// The table as aligned text, under a title line; Apple's schemas get a column per platform before DESCRIPTION.
    public func render() -> String {
        var header = Self.header
        var body = self.rows
        let platformRows = self.platformRows
        if platformRows.count == body.count, !platformRows.isEmpty {
            header.insert(contentsOf: Self.platforms.map { $0.uppercased() }, at: 5)
            for index in body.indices { body[index].insert(contentsOf: platformRows[index], at: 5) }
        }
        let rows = [header] + body
        let last = header.count - 1
        let widths = (0...last).map { column in min(column == last ? 60 : 40, rows.map { $0[column].count }.max() ?? 0)
        }
        let hints = schema.hints.map { "; hints from \($0.path)" } ?? ""
        var out =
            "\(schema.title ?? schema.id) (\(schema.format.rawValue), \(schema.path)\(hints)): "
            + (narrowedTo.map { "for \($0)" } ?? "\(schema.keys.count) keys") + "\n\n"
        for row in rows {
            let cells = row.enumerated().map { column, text in
                let cut = text.count > widths[column] ? String(text.prefix(widths[column] - 1)) + "…" : text
                return column == last ? cut : cut.padding(to: widths[column])
            }
            out += cells.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
        }
        return out
    }

    private func type(_ spec: KeySpec) -> String {
        let names = spec.types.isEmpty ? "any" : spec.types.map(\.rawValue).joined(separator: "|")
        if let item = spec.items.first, !item.types.isEmpty {
            return "\(names) of \(item.types.map(\.rawValue).joined(separator: "|"))"
        }
        return names
    }

    private func constraints(_ spec: KeySpec) -> String {
        let target = spec.items.first ?? spec
        var parts: [String] = []
        if let allowed = target.allowedValues {
            parts.append(
                "one of " + allowed.prefix(6).map { value($0.value) }.joined(separator: ", ")
                    + (allowed.count > 6 ? ", …" : ""))
        }
        if target.minimum != nil || target.maximum != nil {
            parts.append("\(target.minimum?.description ?? "…")...\(target.maximum?.description ?? "…")")
        }
        if target.minLength != nil || target.maxLength != nil {
            parts.append(
                "length \(target.minLength.map(String.init) ?? "0")...\(target.maxLength.map(String.init) ?? "…")")
        }
        if let pattern = target.pattern { parts.append("pattern \(pattern.source)") }
        if spec.minCount != nil || spec.maxCount != nil {
            parts.append("count \(spec.minCount.map(String.init) ?? "0")...\(spec.maxCount.map(String.init) ?? "…")")
        }
        if spec.uniqueItems { parts.append("unique") }
        if spec.deprecation != nil { parts.append("deprecated") }
        // Apple's schemas have a column per platform instead.
        if !spec.availability.platforms.isEmpty, schema.format != .apple {
            parts.append(spec.availability.platforms.joined(separator: "/"))
        }
        return parts.joined(separator: "; ")
    }

    private func value(_ value: PlistValue?) -> String {
        guard let value else { return "" }
        switch value {
        case .string(let text): return "\"\(text)\""
        case .integer(let number): return String(number)
        case .real(let number): return PlistWriter.realText(number)
        case .boolean(let flag): return flag ? "true" : "false"
        case .date(let date): return date.iso8601
        case .data(let bytes): return "<\(bytes.count) bytes>"
        case .array(let items): return "[" + items.map { self.value($0.value) }.joined(separator: ", ") + "]"
        case .dictionary(let dict): return "{\(dict.count) keys}"
        }
    }

    private func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\t" || $0 == "\r\n" ? " " : $0 })
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    fileprivate func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
