import Foundation
import Testing

@testable import DevicePolicy

/// Every device-policy code is documented in the README, and no code is used twice.
struct CodeCatalogTests {
    static func readme() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    }

    @Test func errorCodesAreInTheREADME() throws {
        let readme = try Self.readme()
        for code in DevicePolicyCode.errors {
            #expect(readme.contains("| \(code.code) | \(code.name) |"), "README lacks \(code.code) \(code.name)")
        }
        #expect(Set(DevicePolicyCode.errors.map(\.code)).count == DevicePolicyCode.errors.count)
    }

    @Test func lintCodesAreInTheREADME() throws {
        let readme = try Self.readme()
        for lint in PolicyLint.all {
            #expect(
                readme.contains("| \(lint.code.code) | \(lint.code.name) | \(lint.code.rule ?? "") |"),
                "README lacks \(lint.code.code)")
        }
    }
}
