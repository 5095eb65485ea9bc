import Foundation
import MDMDiagnostics
import PropertyList
import Testing

/// Codes are documented and never reused.
struct CodeCatalogTests {
    @Test func codesAreUniqueAndWellFormed() {
        let codes = PlistCode.all.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(Set(PlistCode.all.map(\.name)).count == codes.count)
        for code in PlistCode.all {
            #expect(code.code.hasPrefix("MC1") && code.code.count == 6)
            #expect(code.name.allSatisfy { $0.isLowercase || $0 == "-" || $0.isNumber })
        }
    }

    @Test func referenceDocumentsEveryCode() throws {
        let reference = try String(
            contentsOf: Plistlib.packageRoot.appendingPathComponent(
                "Sources/MDMDiagnostics/MDMDiagnostics.docc/DiagnosticCodes.md"), encoding: .utf8)
        for code in PlistCode.all {
            #expect(
                reference.contains("| \(code.code) | \(code.name) |"), "the reference lacks \(code.code) \(code.name)")
        }
    }
}
