import MDMConf
import MDMDiagnostics
import Testing

/// The set rules on declarations built in code: a cycle of references is found once, whatever the order of files.
struct DeclarationSetTests {
    static func declaration(_ identifier: String, type: String, naming: [String]) -> DeclarationSummary {
        DeclarationSummary(
            file: "\(identifier).json", identifier: identifier, type: type, position: SourcePosition(line: 3, column: 17),
            references: naming.map {
                DeclarationSummary.Reference(
                    identifier: $0, types: ["com.apple.configuration.test"], position: SourcePosition(line: 6),
                    keyPath: "Payload.Reference")
            })
    }

    @Test(arguments: [false, true])
    func aCycleIsFoundOnce(reversed: Bool) {
        var set = [
            Self.declaration("b", type: "com.apple.configuration.test", naming: ["c"]),
            Self.declaration("a", type: "com.apple.configuration.test", naming: ["b"]),
            Self.declaration("c", type: "com.apple.configuration.test", naming: ["a"]),
            Self.declaration("d", type: "com.apple.configuration.test", naming: ["a"]),
        ]
        if reversed { set.reverse() }
        let findings = DeclarationSet.check(set).values.flatMap { $0 }
        #expect(findings.map(\.code.code) == ["MC2059"])
        #expect(findings.first?.message.hasSuffix("a → b → c → a") == true, "\(findings.map(\.message))")
        #expect(findings.first?.file == "a.json")
    }

    @Test func aSetWithoutDefectsHasNoFinding() {
        let set = [
            Self.declaration("a", type: "com.apple.configuration.test", naming: ["b"]),
            Self.declaration("b", type: "com.apple.configuration.test", naming: []),
        ]
        #expect(DeclarationSet.check(set).isEmpty)
    }
}
