import MDMDiagnostics
import PropertyList

/// How the values that several payloads or declarations give one key become the value that holds. Apple's schemas
/// name the rule of some declaration keys (`combinetype`); for the restrictions payload Apple documents that the most
/// restrictive value wins, which ``RestrictionKey`` turns into one of these per key.
public enum CombineRule: String, Sendable, CaseIterable {
    /// False if any says false.
    case booleanAnd = "boolean-and"
    /// True if any says true.
    case booleanOr = "boolean-or"
    /// The smallest number.
    case numberMin = "number-min"
    /// The largest number.
    case numberMax = "number-max"
    /// Every item any list holds.
    case setUnion = "set-union"
    /// Only the items every list holds.
    case setIntersection = "set-intersection"
    /// Of the values given, the one listed first among the allowed values.
    case enumFirst = "enum-first"
    /// Of the values given, the one listed last among the allowed values.
    case enumLast = "enum-last"
    /// The value of the first payload or declaration, in identifier order.
    case first
    /// The value of the last payload or declaration, in identifier order.
    case last

    /// The rule in a few words, for answers.
    public var explanation: String {
        switch self {
        case .booleanAnd: "false if any says false"
        case .booleanOr: "true if any says true"
        case .numberMin: "the smallest number"
        case .numberMax: "the largest number"
        case .setUnion: "every item any list holds"
        case .setIntersection: "only the items every list holds"
        case .enumFirst: "the value listed first among the allowed values"
        case .enumLast: "the value listed last among the allowed values"
        case .first: "the first in identifier order"
        case .last: "the last in identifier order"
        }
    }

    /// The value that holds, and which of `values` (indices, in order) decided it; nil when a value is not of the
    /// kind the rule combines (a string for `number-max`). With no rule the values must agree: nil value and no
    /// deciding index when they do not.
    public static func combine(_ values: [PlistValue], by rule: CombineRule?, allowed: [PlistValue] = [])
        -> (value: PlistValue?, deciding: [Int])?
    {
        guard !values.isEmpty else { return (nil, []) }
        let all = Array(values.indices)
        func holding(_ value: PlistValue) -> (PlistValue?, [Int]) { (value, all.filter { values[$0] == value }) }
        guard let rule else {
            return values.allSatisfy({ $0 == values[0] }) ? (values[0], all) : (nil, [])
        }
        switch rule {
        case .booleanAnd, .booleanOr:
            var flags: [Bool] = []
            for value in values {
                guard case .boolean(let flag) = value else { return nil }
                flags.append(flag)
            }
            let winning = rule == .booleanOr
            return holding(.boolean(flags.contains(winning) ? winning : !winning))
        case .numberMin, .numberMax:
            var numbers: [Double] = []
            for value in values {
                switch value {
                case .integer(let number): numbers.append(Double(number))
                case .real(let number): numbers.append(number)
                default: return nil
                }
            }
            let best = (rule == .numberMin ? numbers.min() : numbers.max()) ?? 0
            let index = numbers.firstIndex(of: best) ?? 0
            return (values[index], all.filter { numbers[$0] == best })
        case .setUnion, .setIntersection:
            var lists: [[PlistNode]] = []
            for value in values {
                guard case .array(let items) = value else { return nil }
                lists.append(items)
            }
            var merged: [PlistNode] = []
            for item in lists.joined() where !merged.contains(where: { $0.value == item.value }) {
                if rule == .setUnion || lists.allSatisfy({ $0.contains { $0.value == item.value } }) {
                    merged.append(item)
                }
            }
            return (.array(merged), all)
        case .enumFirst, .enumLast:
            let ranks = values.map { value in allowed.firstIndex(of: value) }
            guard !ranks.contains(nil) else { return nil }
            let ranked = ranks.compactMap { $0 }
            let best = (rule == .enumFirst ? ranked.min() : ranked.max()) ?? 0
            return holding(allowed[best])
        case .first: return (values[0], [0])
        case .last: return (values[values.count - 1], [values.count - 1])
        }
    }
}

/// A key `mdmconf policy restriction` answers beyond the restrictions it evaluates itself: any key of Apple's
/// restrictions payload, or a key of a declaration type, with the rule that combines it, as Apple's schema describes
/// them (the MDMConf module reads the schema; this module never does).
public struct RestrictionKey: Sendable {
    /// The payload or declaration type whose key this is (`com.apple.applicationaccess`,
    /// `com.apple.configuration.passcode.settings`).
    public var payloadType: String
    /// The key's path inside the payload or the declaration's `Payload` (`["MinimumLength"]`).
    public var path: [String]
    /// How the values combine; nil when nothing says, and the values must then agree.
    public var rule: CombineRule?
    /// Where the rule comes from, for answers: `combinetype in Apple's schema`, `most restrictive: an allow… key`.
    public var ruleSource: String
    /// The value that holds when nothing sets the key, when the schema gives one.
    public var defaultValue: PlistValue?
    /// The allowed values in the schema's order, for the `enum-first` and `enum-last` rules.
    public var allowed: [PlistValue]

    /// A key of `payloadType` at `path`, combined by `rule`.
    public init(
        payloadType: String, path: [String], rule: CombineRule?, ruleSource: String, defaultValue: PlistValue? = nil,
        allowed: [PlistValue] = []
    ) {
        (self.payloadType, self.path, self.rule, self.ruleSource) = (payloadType, path, rule, ruleSource)
        (self.defaultValue, self.allowed) = (defaultValue, allowed)
    }

    /// How the answer names the key: `allowCamera`, `com.apple.configuration.passcode.settings.MinimumLength`.
    public var name: String {
        let key = path.joined(separator: ".")
        return payloadType == Payload.restrictionsType ? key : payloadType + "." + key
    }

    /// Apple's documented rule for a key of the restrictions payload, which has no `combinetype`: the most
    /// restrictive value wins. An `allow…` boolean is false if any payload says false, a `force…` or `require…`
    /// boolean true if any says true; ratings and other numeric limits take the smallest value, delays the largest;
    /// a list of blocked items is the union, any other list the intersection. nil for a key whose values have no
    /// restrictive order (a string such as `ratingRegion`): its values must agree.
    public static func mostRestrictive(_ key: String, type: String) -> (rule: CombineRule, reason: String)? {
        let lower = key.lowercased()
        let name = lower.hasPrefix("safari") ? String(lower.dropFirst("safari".count)) : lower
        switch type {
        case "boolean":
            if name.hasPrefix("allow") {
                return (.booleanAnd, "most restrictive: an allow… key is false if any says so")
            }
            if name.hasPrefix("force") || name.hasPrefix("require") {
                return (.booleanOr, "most restrictive: a force… or require… key is true if any says so")
            }
            return nil
        case "integer", "real":
            if name.contains("delay") { return (.numberMax, "most restrictive: the longest delay") }
            return (.numberMin, "most restrictive: the lowest limit")
        case "array":
            if name.contains("blocked") || name.contains("blacklisted") || name.contains("denied") {
                return (.setUnion, "most restrictive: every item any blocked list holds")
            }
            return (.setIntersection, "most restrictive: only the items every allowed list holds")
        default: return nil
        }
    }
}
