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

    @Test func readmeDocumentsEveryCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        for code in UpdatePolicyCode.all {
            #expect(readme.contains("| \(code.code) | \(code.name) |"), "README lacks \(code.code)")
        }
    }
}
