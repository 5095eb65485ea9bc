import ConfigSchema
import Foundation
import MDMDiagnostics
import Testing

struct SchemaCodeCatalogTests {
    @Test func codesAreUniqueAndInTheirRanges() {
        let codes = SchemaCode.all.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(Set(SchemaCode.all.map(\.name)).count == codes.count)
        #expect(codes.allSatisfy { $0.hasPrefix("MC2") || $0.hasPrefix("MC3") })
    }

    @Test func referenceDocumentsEveryCode() throws {
        let reference = try String(
            contentsOf: Support.packageRoot.appendingPathComponent(
                "Sources/MDMDiagnostics/MDMDiagnostics.docc/DiagnosticCodes.md"), encoding: .utf8)
        for code in SchemaCode.all {
            #expect(
                reference.contains("| \(code.code) | \(code.name) |"), "the reference lacks \(code.code) \(code.name)")
        }
    }
}
