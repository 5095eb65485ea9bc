import MDMDiagnostics
import PropertyList

/// One difference between two plist values, at a key path.
public struct ValueChange: Sendable, Equatable {
    /// What happened to the value.
    public enum Kind: String, Sendable {
        /// It is new.
        case added
        /// It is gone.
        case removed
        /// It has another value (or another type).
        case changed
        /// An array item matched by its identifying key is at another index.
        case moved
    }

    /// What happened.
    public var kind: Kind
    /// Where, in the new value for added/changed/moved, the old one for removed: `Accounts[1].Server`. Array items
    /// matched by an identifying key are written `Accounts[Name=Work]`.
    public var path: String
    /// The value before (nil when added).
    public var old: PlistValue?
    /// The value after (nil when removed).
    public var new: PlistValue?
    /// For `moved`: the item's index before and after.
    public var from: Int?
    /// For `moved`: the item's index after.
    public var to: Int?
    /// A value under a sensitive key: never shown.
    public var sensitive: Bool
}

/// A semantic diff of two plist values: dictionaries by key, arrays of dictionaries by an identifying key when
/// their items have one (moves recognised), other arrays by position, a type change as one change.
public struct PlistDiff: Sendable {
    /// Whether the value at a key path is sensitive (a schema's `sensitive` keys); nil treats names that look
    /// like secrets as sensitive.
    public var isSensitive: @Sendable (KeyPath) -> Bool

    /// Keys that identify an item of an array of dictionaries, tried in this order; the first one every item of
    /// both arrays has, as a string with no repeats, matches items.
    public static let identifyingKeys = [
        "id", "identifier", "Identifier", "ID", "PayloadIdentifier", "PayloadUUID", "name", "Name", "key", "Key",
        "bundleId", "BundleID", "bundleIdentifier", "SSID_STR", "URL", "url",
    ]

    /// A diff that hides the values of the keys `isSensitive` names (default: `looksSecret`).
    public init(isSensitive: (@Sendable (KeyPath) -> Bool)? = nil) {
        self.isSensitive = isSensitive ?? PlistDiff.looksSecret
    }

    /// Names that hold secrets in the wild (`Password`, `APIToken`, `client_secret`, `PrivateKey`, …).
    @Sendable public static func looksSecret(_ path: KeyPath) -> Bool {
        for case .key(let name) in path.components {
            let lower = name.lowercased()
            if ["password", "passcode", "secret", "token", "apikey", "api_key", "privatekey", "credential", "pin"]
                .contains(where: { lower.contains($0) }) && lower != "pinned"
            {
                return true
            }
        }
        return false
    }

    /// Every change from `old` to `new`, key by key, in the new value's order.
    public func changes(from old: PlistValue, to new: PlistValue) -> [ValueChange] {
        var out: [ValueChange] = []
        compare(old, new, path: .root, written: "", sensitive: isSensitive(.root), into: &out)
        return out
    }

    private func compare(
        _ old: PlistValue, _ new: PlistValue, path: KeyPath, written: String, sensitive: Bool,
        into out: inout [ValueChange]
    ) {
        switch (old, new) {
        case (.dictionary(let a), .dictionary(let b)):
            for entry in a.entries where b[entry.key] == nil {
                let child = path.appending(key: entry.key)
                out.append(
                    change(
                        .removed, join(written, entry.key), old: entry.value.value, new: nil,
                        sensitive: sensitive || isSensitive(child)))
            }
            for entry in b.entries {
                let child = path.appending(key: entry.key)
                let childSensitive = sensitive || isSensitive(child)
                if let before = a[entry.key] {
                    compare(
                        before.value, entry.value.value, path: child, written: join(written, entry.key),
                        sensitive: childSensitive, into: &out)
                } else {
                    out.append(
                        change(
                            .added, join(written, entry.key), old: nil, new: entry.value.value,
                            sensitive: childSensitive))
                }
            }
        case (.array(let a), .array(let b)):
            let child = path.appending(index: 0)
            let childSensitive = sensitive || isSensitive(child)
            if let key = Self.identifyingKey(a, b) {
                compareByKey(a, b, key: key, path: child, written: written, sensitive: childSensitive, into: &out)
            } else {
                for index in 0..<max(a.count, b.count) {
                    let at = "\(written)[\(index)]"
                    if index >= b.count {
                        out.append(change(.removed, at, old: a[index].value, new: nil, sensitive: childSensitive))
                    } else if index >= a.count {
                        out.append(change(.added, at, old: nil, new: b[index].value, sensitive: childSensitive))
                    } else {
                        compare(
                            a[index].value, b[index].value, path: child, written: at, sensitive: childSensitive,
                            into: &out)
                    }
                }
            }
        default:
            if old != new || old.typeName != new.typeName {
                out.append(change(.changed, written, old: old, new: new, sensitive: sensitive))
            }
        }
    }

    private func compareByKey(
        _ a: [PlistNode], _ b: [PlistNode], key: String, path: KeyPath, written: String, sensitive: Bool,
        into out: inout [ValueChange]
    ) {
        func id(_ node: PlistNode) -> String {
            if case .dictionary(let dict) = node.value, case .string(let text)? = dict[key]?.value { return text }
            return ""
        }
        let oldIndex = Dictionary(uniqueKeysWithValues: a.enumerated().map { (id($0.element), $0.offset) })
        let newIDs = Set(b.map(id))
        for (index, node) in a.enumerated() where !newIDs.contains(id(node)) {
            out.append(
                change(
                    .removed, "\(written)[\(key)=\(id(node))]", old: node.value, new: nil, sensitive: sensitive,
                    from: index))
        }
        // Items kept in the same relative order are not moves; an item out of that order is.
        var kept: [Int] = []
        for node in b { if let index = oldIndex[id(node)] { kept.append(index) } }
        let stay = Set(Self.longestIncreasing(kept))
        for (index, node) in b.enumerated() {
            let at = "\(written)[\(key)=\(id(node))]"
            guard let before = oldIndex[id(node)] else {
                out.append(change(.added, at, old: nil, new: node.value, sensitive: sensitive, to: index))
                continue
            }
            if !stay.contains(before) {
                var moved = change(.moved, at, old: nil, new: nil, sensitive: sensitive)
                moved.from = before
                moved.to = index
                out.append(moved)
            }
            compare(a[before].value, node.value, path: path, written: at, sensitive: sensitive, into: &out)
        }
    }

    /// The identifying key of two arrays of dictionaries, if one fits (see ``identifyingKeys``).
    static func identifyingKey(_ a: [PlistNode], _ b: [PlistNode]) -> String? {
        guard !(a.isEmpty && b.isEmpty) else { return nil }
        let dicts = (a + b).compactMap { node -> PlistDictionary? in
            if case .dictionary(let dict) = node.value { return dict }
            return nil
        }
        guard dicts.count == a.count + b.count else { return nil }
        return identifyingKeys.first { key in
            func unique(_ nodes: [PlistNode]) -> Bool {
                var seen = Set<String>()
                for node in nodes {
                    guard case .dictionary(let dict) = node.value, case .string(let text)? = dict[key]?.value,
                        seen.insert(text).inserted
                    else { return false }
                }
                return true
            }
            return unique(a) && unique(b)
        }
    }

    /// The values of the longest strictly increasing subsequence of `values`.
    static func longestIncreasing(_ values: [Int]) -> [Int] {
        guard !values.isEmpty else { return [] }
        var tails: [Int] = []
        var tailIndex: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if tails[mid] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[index] = tailIndex[low - 1] }
            if low == tails.count {
                tails.append(value)
                tailIndex.append(index)
            } else {
                tails[low] = value
                tailIndex[low] = index
            }
        }
        var result: [Int] = []
        var index = tailIndex.last ?? -1
        while index >= 0 {
            result.append(values[index])
            index = previous[index]
        }
        return result.reversed()
    }

    private func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func change(
        _ kind: ValueChange.Kind, _ path: String, old: PlistValue?, new: PlistValue?, sensitive: Bool, from: Int? = nil,
        to: Int? = nil
    ) -> ValueChange {
        ValueChange(
            kind: kind, path: path.isEmpty ? "(root)" : path, old: old, new: new, from: from, to: to,
            sensitive: sensitive)
    }
}

extension ValueChange {
    /// One line for a change ticket: `~ Sync.Interval: 30 → 60`, `+ Servers[Name=EU]: {3 keys}`,
    /// `- Theme: 'dark'`, `↕ Servers[Name=EU]: moved from [0] to [2]`.
    public var line: String {
        switch kind {
        case .added: "+ \(path): \(Self.show(new, sensitive))"
        case .removed: "- \(path): \(Self.show(old, sensitive))"
        case .changed:
            if let old, let new, old.typeName != new.typeName {
                "~ \(path): \(Self.show(old, sensitive)) (\(old.typeName)) → \(Self.show(new, sensitive)) (\(new.typeName))"
            } else {
                "~ \(path): \(Self.show(old, sensitive)) → \(Self.show(new, sensitive))"
            }
        case .moved: "↕ \(path): moved from [\(from ?? 0)] to [\(to ?? 0)]"
        }
    }

    /// The change as `mdmconf diff --format json` writes it (sensitive values redacted).
    public var json: JSONValue {
        .object([
            ("kind", .string(kind.rawValue)), ("path", .string(path)),
            ("old", old.map { sensitive ? .string("<redacted>") : PlistWriter.jsonValue($0) } ?? .null),
            ("new", new.map { sensitive ? .string("<redacted>") : PlistWriter.jsonValue($0) } ?? .null),
            ("from", .optional(from)), ("to", .optional(to)),
        ])
    }

    /// A short rendering of a value: strings quoted, containers by size, secrets redacted.
    public static func show(_ value: PlistValue?, _ sensitive: Bool) -> String {
        guard let value else { return "-" }
        if sensitive { return "<redacted>" }
        switch value {
        case .string(let text): return "'\(text.count > 80 ? String(text.prefix(77)) + "…" : text)'"
        case .integer(let number): return String(number)
        case .real(let number): return PlistWriter.realText(number)
        case .boolean(let flag): return flag ? "true" : "false"
        case .date(let date): return date.iso8601
        case .data(let bytes): return "<\(bytes.count) bytes>"
        case .array(let items):
            if items.count <= 4, items.allSatisfy({ if case .string = $0.value { true } else { false } }) {
                return "[" + items.map { show($0.value, false) }.joined(separator: ", ") + "]"
            }
            return "[\(items.count) items]"
        case .dictionary(let dict): return "{\(dict.count) keys}"
        }
    }
}
