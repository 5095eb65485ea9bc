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

    @Test func readmeDocumentsEveryCode() throws {
        let readme = try String(contentsOf: Support.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for code in SchemaCode.all {
            #expect(readme.contains("| \(code.code) | \(code.name) |"), "README lacks \(code.code) \(code.name)")
        }
    }
}
