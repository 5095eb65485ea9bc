import CivilTime
import DevicePolicy
import MDMDiagnostics
import PropertyList

/// `mdmconf policy test CASES` (*Device policies*): a table of queries over profile files with the answers
/// expected, OPA-style. Cases come from JSON (an array, or `{"cases": [...]}`) or a plist of that structure.
public struct PolicyTestSuite: Sendable {
    /// One query with the answer expected.
    public struct Case: Sendable {
        /// The case's name in reports.
        public let id: String
        let profiles: [String]
        let query: PolicyQuery
        let skipInvalid: Bool
        let expect: [(String, PlistValue)]
    }

    /// How one case went.
    public struct Outcome: Sendable {
        /// The case's name.
        public let id: String
        /// What differed; empty when the case passed.
        public let failures: [String]
        /// True when the answer was the one expected.
        public var passed: Bool { failures.isEmpty }
    }

    /// The CASES file cannot be used (exit 78): every problem found.
    public struct InvalidFile: Error, Sendable {
        /// Every problem found in the file.
        public let diagnostics: [Diagnostic]
    }

    /// The cases, in file order.
    public let cases: [Case]
    let folder: String

    /// JSON `null` in a cases file (an empty data value: cases never hold data), so `fields` can expect null.
    static let nullMarker = PlistValue.data([])

    static let expectKeys: Set<String> = [
        "exitCode", "decision", "reasons", "reasonsAbsent", "profilesCited", "profilesNotCited", "citedBy", "lints",
        "advisories", "diagnostics", "inactive", "fields",
    ]

    /// Reads the CASES file; unreadable throws `InputError` (66), unusable `InvalidFile` (78).
    public static func load(_ path: String, options: PlistReaderOptions = PlistReaderOptions()) throws
        -> PolicyTestSuite
    {
        let bytes: [UInt8]
        switch try InputFile.read(path, limit: options.maxInputSize) {
        case .bytes(let read): bytes = read
        case .tooLarge(let size):
            throw InvalidFile(diagnostics: [PlistCode.fileTooLarge(size: size, limit: options.maxInputSize, file: path)]
            )
        }
        let document =
            PropertyListReader.detectShape(bytes) == .json
            ? JSONPlistReader(options: options, nullValue: nullMarker).read(bytes, file: path)
            : PropertyListReader(options: options).read(bytes, file: path)
        guard let root = document.root, !document.hasErrors else {
            throw InvalidFile(diagnostics: document.diagnostics)
        }
        var problems: [Diagnostic] = []
        func problem(_ message: String, _ node: PlistNode) {
            problems.append(
                Diagnostic(
                    DevicePolicyCode.invalidValue, severity: .error, message: message,
                    location: SourceLocation(file: path, position: node.position)))
        }
        var items: [PlistNode] = []
        switch root.value {
        case .array(let list): items = list
        case .dictionary(let dict):
            if let node = dict["cases"], case .array(let list) = node.value {
                items = list
            } else {
                problem("a cases file is an array of cases or a dict with a 'cases' array", root)
            }
        default: problem("a cases file is an array of cases or a dict with a 'cases' array", root)
        }
        var cases: [Case] = []
        for (index, item) in items.enumerated() {
            guard case .dictionary(let dict) = item.value else {
                problem("case \(index) is not an object", item)
                continue
            }
            let id =
                dict["id"].flatMap { if case .string(let text) = $0.value { text } else { nil } } ?? "case \(index)"
            var profiles: [String] = []
            if let node = dict["profiles"] {
                if case .array(let list) = node.value {
                    for entry in list {
                        if case .string(let text) = entry.value {
                            profiles.append(text)
                        } else {
                            problem("\(id): profiles must be strings", entry)
                        }
                    }
                } else {
                    problem("\(id): 'profiles' must be an array of paths", node)
                }
            }
            guard let queryNode = dict["query"], case .dictionary(let queryDict) = queryNode.value else {
                problem("\(id): 'query' must be an object", item)
                continue
            }
            let query: PolicyQuery
            switch PolicyQuery.parse(queryDict, now: .now) {
            case .success(let parsed): query = parsed
            case .failure(let error):
                problem("\(id): \(error.message)", queryNode)
                continue
            }
            var skip = false
            if let node = dict["skipInvalid"], case .boolean(let value) = node.value { skip = value }
            guard let expectNode = dict["expect"], case .dictionary(let expect) = expectNode.value,
                let exit = expect["exitCode"], case .integer = exit.value
            else {
                problem("\(id): 'expect' must be an object with an integer exitCode", item)
                continue
            }
            for entry in expect.entries where !expectKeys.contains(entry.key) {
                problem("\(id): unknown expect field '\(entry.key)'", entry.value)
            }
            cases.append(
                Case(
                    id: id, profiles: profiles, query: query, skipInvalid: skip,
                    expect: expect.entries.map { ($0.key, $0.value.value) }))
        }
        guard problems.isEmpty else { throw InvalidFile(diagnostics: problems) }
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        return PolicyTestSuite(cases: cases, folder: folder)
    }

    /// Runs every case; the order of outcomes is the order of cases.
    public func run(options: PlistReaderOptions = PlistReaderOptions()) -> [Outcome] {
        ParallelMap.map(cases) { testCase in
            let paths = testCase.profiles.map { $0.hasPrefix("/") ? $0 : folder + "/" + $0 }
            let answer = ProfileInputs.answer(
                testCase.query, profiles: paths, skipInvalid: testCase.skipInvalid, options: options)
            return Outcome(id: testCase.id, failures: Self.compare(answer, testCase.expect))
        }
    }

    static func compare(_ answer: PolicyAnswer, _ expect: [(String, PlistValue)]) -> [String] {
        var failures: [String] = []
        let json = answer.json
        let reasonCodes = answer.reasons.map(\.code)
        func strings(_ value: PlistValue) -> [String] {
            guard case .array(let items) = value else { return [] }
            return items.compactMap { if case .string(let text) = $0.value { text } else { nil } }
        }
        for (key, value) in expect {
            switch key {
            case "exitCode":
                if case .integer(let code) = value, code != Int64(answer.exitCode) {
                    failures.append("exit code \(answer.exitCode), expected \(code)")
                }
            case "decision":
                let expected: String? = if case .string(let text) = value { text } else { nil }
                if answer.decision?.rawValue != expected {
                    failures.append("decision \(answer.decision?.rawValue ?? "null"), expected \(expected ?? "null")")
                }
            case "reasons":
                for code in strings(value) where !reasonCodes.contains(code) {
                    failures.append("reason \(code) missing (got \(reasonCodes.joined(separator: " ")))")
                }
            case "reasonsAbsent":
                for code in strings(value) where reasonCodes.contains(code) {
                    failures.append("reason \(code) present")
                }
            case "profilesCited":
                let cited = Set(answer.reasons.compactMap { $0.payload?.profile })
                for profile in strings(value) where !cited.contains(profile) {
                    failures.append("profile \(profile) not cited")
                }
            case "profilesNotCited":
                let cited = Set(answer.reasons.compactMap { $0.payload?.profile })
                for profile in strings(value) where cited.contains(profile) {
                    failures.append("profile \(profile) cited")
                }
            case "citedBy":
                guard case .dictionary(let dict) = value else { continue }
                for entry in dict.entries {
                    let cited = Set(answer.reasons.filter { $0.code == entry.key }.compactMap { $0.payload?.profile })
                    for profile in strings(entry.value.value) where !cited.contains(profile) {
                        failures.append("\(entry.key) does not cite \(profile)")
                    }
                }
            case "lints":
                let rules = Set(answer.lints.flatMap { [$0.diagnostic.code.rule ?? "", $0.diagnostic.code.code] })
                for code in strings(value) where !rules.contains(code) { failures.append("lint \(code) missing") }
            case "advisories":
                let codes = Set(answer.advisories.map(\.code))
                for code in strings(value) where !codes.contains(code) { failures.append("advisory \(code) missing") }
            case "diagnostics":
                let codes = Set(answer.diagnostics.map(\.diagnostic.code.code))
                for code in strings(value) where !codes.contains(code) { failures.append("diagnostic \(code) missing") }
            case "inactive":
                let profiles = Set(answer.inactive.map(\.profile))
                for profile in strings(value) where !profiles.contains(profile) {
                    failures.append("profile \(profile) not inactive")
                }
            case "fields":
                guard case .dictionary(let dict) = value else { continue }
                for entry in dict.entries {
                    let actual = json.at(path: entry.key)
                    let expected = JSONValue(plist: entry.value.value)
                    if actual != expected {
                        failures.append(
                            "\(entry.key) is \(actual?.serialized(pretty: false) ?? "absent"), expected \(expected.serialized(pretty: false))"
                        )
                    }
                }
            default: break
            }
        }
        return failures
    }
}

extension JSONValue {
    /// The value at a dotted path (`options.DisableAutoLock`, `reasons.0.index`); nil when absent.
    func at(path: String) -> JSONValue? {
        var current: JSONValue? = self
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            switch current {
            case .object(let members): current = members.first { $0.0 == part }?.1
            case .array(let items): current = Int(part).flatMap { $0 >= 0 && $0 < items.count ? items[$0] : nil }
            default: return nil
            }
        }
        return current
    }

    init(plist: PlistValue) {
        switch plist {
        case .string(let text): self = .string(text)
        case .integer(let value): self = .integer(value)
        case .real(let value): self = .number(String(value))
        case .boolean(let value): self = .bool(value)
        case .date(let date): self = .string(date.iso8601)
        case .data(let bytes): self = bytes.isEmpty ? .null : .string(bytes.map { String($0, radix: 16) }.joined())
        case .array(let items): self = .array(items.map { JSONValue(plist: $0.value) })
        case .dictionary(let dict): self = .object(dict.entries.map { ($0.key, JSONValue(plist: $0.value.value)) })
        }
    }
}
