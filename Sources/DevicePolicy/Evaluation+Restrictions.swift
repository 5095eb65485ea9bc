import MDMDiagnostics
import PropertyList

/// `restriction KEY` (*Device policies*): the value that holds for one key across the active payloads, and the
/// payloads and rule that decided it.
extension Evaluation {
    /// One of the restrictions this module evaluates itself (`Restrictions`): booleans by AND or OR, lists of bundle
    /// ids (compared without case) by union or intersection.
    mutating func decideRestriction(_ key: String, into fields: inout [(String, JSONValue)]) -> PolicyDecision {
        var contributors: [(PayloadInfo, String, JSONValue)] = []
        var boolSettings: [(PayloadInfo, Setting<Bool>)] = []
        var lists: [(PayloadInfo, ListSetting<String>)] = []
        for (_, payload) in activePayloads() {
            guard case .restrictions(let restrictions) = payload.content else { continue }
            if let setting = restrictions.booleans[key] {
                boolSettings.append((payload.info, setting))
                contributors.append((payload.info, setting.key, setting.written))
            }
            let list: ListSetting<String>? =
                switch key {
                case "allowListedAppBundleIDs": restrictions.allowListedApps
                case "blockedAppBundleIDs": restrictions.blockedApps
                case "autonomousSingleAppModePermittedAppIDs": restrictions.asamApps
                default: nil
                }
            if let list {
                lists.append((payload.info, list))
                contributors.append((payload.info, list.key, .array(list.entries.map(\.written))))
            }
        }
        contributors.sort { PayloadInfo.ordered($0.0, $1.0) }
        lists.sort { PayloadInfo.ordered($0.0, $1.0) }
        var value: JSONValue
        let isList = Restrictions.listKeys.contains(key)
        // Every evaluated key is an allow… or force… boolean or a list: Apple's rule always has an answer.
        let (rule, ruleSource) =
            RestrictionKey.mostRestrictive(key, type: isList ? "array" : "boolean")
            ?? (.booleanAnd, "most restrictive")
        if isList {
            var spelling: [String: String] = [:]
            var merged: Set<String>? = nil
            for (_, list) in lists {
                let keys = Set(list.entries.map { BundleID.key($0.value) })
                for entry in list.entries where spelling[BundleID.key(entry.value)] == nil {
                    spelling[BundleID.key(entry.value)] = entry.value
                }
                merged = rule == .setUnion ? (merged ?? []).union(keys) : (merged?.intersection(keys) ?? keys)
            }
            if let merged {
                value = .array(merged.sorted(by: String.utf8Less).map { .string(spelling[$0] ?? $0) })
            } else {
                value = key == "allowListedAppBundleIDs" ? .null : .array([])
            }
            for (info, list) in lists {
                reasons.append(
                    Reason(
                        "RESTRICTION_SET", .info, info, key: list.key, value: .array(list.entries.map(\.written)),
                        position: list.position, message: "\(list.key) set by \(info.identifier)"))
            }
        } else {
            let combined = CombineRule.combine(boolSettings.map { .boolean($0.1.value) }, by: rule)
            let merged = boolSettings.isEmpty ? rule == .booleanAnd : combined?.value == .boolean(true)
            value = .bool(merged)
            for index in combined?.deciding ?? [] {
                let (info, setting) = boolSettings[index]
                reasons.append(
                    Reason("RESTRICTION_SET", .info, info, setting, message: "\(setting.key) = \(setting.value)"))
            }
        }
        if reasons.isEmpty {
            reasons.append(Reason("RESTRICTION_DEFAULT", .info, message: "no active payload sets \(key): default"))
        }
        fields = Self.restrictionFields(
            key: key, value: value, rule: rule, ruleSource: ruleSource,
            contributors: contributors)
        return .ok
    }

    /// A key described by Apple's schema (``RestrictionKey``): the values of the active payloads or declarations of
    /// its type, in identifier order, combined by its rule. Values that the rule cannot combine (a string where a
    /// number is due), or that differ where no rule says how to combine them, leave the answer indeterminate.
    mutating func decideRestriction(_ key: RestrictionKey, into fields: inout [(String, JSONValue)]) -> PolicyDecision {
        var found: [(info: PayloadInfo, node: PlistNode)] = []
        for (_, payload) in activePayloads() where payload.info.type == key.payloadType {
            let settings: PlistDictionary
            switch payload.content {
            case .restrictions(let restrictions): settings = restrictions.settings
            case .other(let content): settings = content
            default: continue
            }
            if let node = Self.node(at: key.path, in: settings) { found.append((payload.info, node)) }
        }
        found.sort { PayloadInfo.ordered($0.info, $1.info) }
        let spelled = key.path.joined(separator: ".")
        let written = found.map { PlistWriter.jsonValue($0.node.value) }
        var value = JSONValue.null
        var decision = PolicyDecision.ok
        let ruleText = key.rule.map { "\($0.rawValue): \($0.explanation)" } ?? "no rule: the values must agree"
        if found.isEmpty {
            value = key.defaultValue.map(PlistWriter.jsonValue) ?? .null
            let fallback = key.defaultValue.map {
                "Apple's default \(PlistWriter.jsonValue($0).serialized(pretty: false))"
            }
            reasons.append(
                Reason(
                    "RESTRICTION_DEFAULT", .info,
                    message: "no active payload sets \(key.name): \(fallback ?? "no default in Apple's schema")"))
        } else if let combined = CombineRule.combine(found.map(\.node.value), by: key.rule, allowed: key.allowed),
            let merged = combined.value
        {
            value = PlistWriter.jsonValue(merged)
            for index in combined.deciding {
                reasons.append(
                    Reason(
                        "RESTRICTION_SET", .info, found[index].info, key: spelled, value: written[index],
                        position: found[index].node.position,
                        message: "\(spelled) = \(written[index].serialized(pretty: false)) (\(ruleText))"))
            }
        } else {
            decision = .indeterminate
            let kind = key.rule == nil ? "RESTRICTION_CONFLICT" : "RESTRICTION_UNCOMBINABLE"
            let why =
                key.rule == nil
                ? "the payloads disagree and Apple's schema gives no rule to combine \(spelled)"
                : "these values cannot be combined by \(ruleText)"
            for (index, entry) in found.enumerated() {
                reasons.append(
                    Reason(
                        kind, .indeterminate, entry.info, key: spelled, value: written[index],
                        position: entry.node.position, message: why))
            }
        }
        fields = Self.restrictionFields(
            key: key.name, value: value, rule: key.rule, ruleSource: key.ruleSource,
            contributors: zip(found, written).map { ($0.info, spelled, $1) })
        return decision
    }

    /// The node at `path` in `settings`, through nested dictionaries.
    private static func node(at path: [String], in settings: PlistDictionary) -> PlistNode? {
        var current = settings
        for (offset, name) in path.enumerated() {
            guard let node = current[name] else { return nil }
            if offset == path.count - 1 { return node }
            guard case .dictionary(let next) = node.value else { return nil }
            current = next
        }
        return nil
    }

    private static func restrictionFields(
        key: String, value: JSONValue, rule: CombineRule?, ruleSource: String,
        contributors: [(PayloadInfo, String, JSONValue)]
    ) -> [(String, JSONValue)] {
        [
            ("key", .string(key)), ("value", value),
            (
                "contributors",
                .array(
                    contributors.map { info, spelled, written in
                        .object([
                            ("profile", .string(info.profile)), ("payload", .string(info.identifier)),
                            ("key", .string(spelled)), ("value", written),
                        ])
                    })
            ),
            ("rule", .optional(rule?.rawValue)), ("ruleSource", .string(ruleSource)),
        ]
    }
}
