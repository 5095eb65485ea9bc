import PropertyList
import Testing

@testable import DevicePolicy

/// Each combining rule over values as payloads and declarations write them: the value that holds and which of them
/// decided it, and the values a rule cannot combine.
struct CombineRuleTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var values: [PlistValue]
        var rule: CombineRule?
        var allowed: [PlistValue] = []
        /// nil: the values cannot be combined; `.some(nil)`: they conflict (no rule, different values).
        var value: PlistValue??
        var deciding: [Int] = []
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "boolean-and: one false wins", values: [true, false, true], rule: .booleanAnd, value: false,
            deciding: [1]),
        Case(name: "boolean-and: all true", values: [true, true], rule: .booleanAnd, value: true, deciding: [0, 1]),
        Case(name: "boolean-or: one true wins", values: [false, true], rule: .booleanOr, value: true, deciding: [1]),
        Case(name: "boolean-or over a number", values: [false, 1], rule: .booleanOr, value: nil),
        Case(name: "number-min", values: [600, 200, 200], rule: .numberMin, value: 200, deciding: [1, 2]),
        Case(
            name: "number-max over integers and reals", values: [6, 8.5, 8], rule: .numberMax, value: 8.5, deciding: [1]
        ),
        Case(name: "number-min over a string", values: [6, "8"], rule: .numberMin, value: nil),
        Case(
            name: "set-union keeps the first order", values: [["a", "b"], ["c", "a"]], rule: .setUnion,
            value: ["a", "b", "c"], deciding: [0, 1]),
        Case(
            name: "set-intersection", values: [["a", "b", "c"], ["c", "a"]], rule: .setIntersection, value: ["a", "c"],
            deciding: [0, 1]),
        Case(
            name: "enum-last: the value listed last wins", values: ["Allowed", "Disallowed", "AlwaysOn"],
            rule: .enumLast, allowed: ["Allowed", "AlwaysOn", "Disallowed"], value: "Disallowed", deciding: [1]),
        Case(
            name: "enum-first", values: ["Disallowed", "AlwaysOn"], rule: .enumFirst,
            allowed: ["Allowed", "AlwaysOn", "Disallowed"], value: "AlwaysOn", deciding: [1]),
        Case(
            name: "enum-last over a value not allowed", values: ["Allowed", "Sometimes"], rule: .enumLast,
            allowed: ["Allowed", "AlwaysOn"], value: nil),
        Case(name: "first", values: [1, 2, 3], rule: .first, value: 1, deciding: [0]),
        Case(name: "last", values: [1, 2, 3], rule: .last, value: 3, deciding: [2]),
        Case(name: "no rule, values agree", values: ["us", "us"], rule: nil, value: "us", deciding: [0, 1]),
        Case(name: "no rule, values differ", values: ["us", "gb"], rule: nil, value: .some(nil)),
    ]

    @Test(arguments: cases) func combine(_ testCase: Case) {
        let combined = CombineRule.combine(testCase.values, by: testCase.rule, allowed: testCase.allowed)
        switch testCase.value {
        case nil: #expect(combined == nil)
        case .some(let value):
            #expect(combined?.value == value)
            #expect(combined?.deciding == testCase.deciding)
        }
    }

    /// Apple's documented rule for the restrictions payload, which has no `combinetype`, by key name and type.
    @Test(
        arguments: [
            ("allowCamera", "boolean", CombineRule.booleanAnd), ("safariAllowPopups", "boolean", .booleanAnd),
            ("forceAutomaticDateAndTime", "boolean", .booleanOr), ("requireManagedPasteboard", "boolean", .booleanOr),
            ("safariForceFraudWarning", "boolean", .booleanOr), ("ratingApps", "integer", .numberMin),
            ("safariAcceptCookies", "real", .numberMin), ("enforcedSoftwareUpdateDelay", "integer", .numberMax),
            ("blockedAppBundleIDs", "array", .setUnion), ("allowListedAppBundleIDs", "array", .setIntersection),
            ("ratingRegion", "string", nil),
        ] as [(String, String, CombineRule?)])
    func mostRestrictive(key: String, type: String, rule: CombineRule?) {
        #expect(RestrictionKey.mostRestrictive(key, type: type)?.rule == rule)
    }
}
