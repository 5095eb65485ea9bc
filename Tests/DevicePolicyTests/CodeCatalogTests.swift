import Foundation
import Testing

@testable import DevicePolicy

/// Every device-policy code is documented in the diagnostics reference, and no code is used twice.
struct CodeCatalogTests {
    static func reference() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(
            contentsOf: root.appendingPathComponent("Sources/MDMDiagnostics/MDMDiagnostics.docc/DiagnosticCodes.md"),
            encoding: .utf8)
    }

    @Test func errorCodesAreInTheReference() throws {
        let reference = try Self.reference()
        for code in DevicePolicyCode.errors {
            #expect(
                reference.contains("| \(code.code) | \(code.name) |"), "the reference lacks \(code.code) \(code.name)")
        }
        #expect(Set(DevicePolicyCode.errors.map(\.code)).count == DevicePolicyCode.errors.count)
    }

    @Test func lintCodesAreInTheReference() throws {
        let reference = try Self.reference()
        for lint in PolicyLint.all {
            #expect(
                reference.contains("| \(lint.code.code) | \(lint.code.name) | \(lint.code.rule ?? "") |"),
                "the reference lacks \(lint.code.code)")
        }
    }
}
