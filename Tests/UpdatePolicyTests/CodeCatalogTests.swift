import Foundation
import Testing
import UpdatePolicy

struct UpdatePolicyCodeCatalogTests {
    @Test func codesAreUniqueAndReasonsFollowNames() {
        let codes = UpdatePolicyCode.all.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { $0.hasPrefix("MC4") })
        #expect(UpdatePolicyCode.reason(UpdatePolicyCode.invalidDateTime) == "invalid_datetime")
    }

    @Test func referenceDocumentsEveryCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let reference = try String(
            contentsOf: root.appendingPathComponent("Sources/MDMDiagnostics/MDMDiagnostics.docc/DiagnosticCodes.md"),
            encoding: .utf8)
        for code in UpdatePolicyCode.all {
            #expect(reference.contains("| \(code.code) | \(code.name) |"), "the reference lacks \(code.code)")
        }
    }
}
