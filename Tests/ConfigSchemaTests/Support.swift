import ConfigSchema
import Foundation
import MDMDiagnostics
import PropertyList

enum Support {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")

    static func corpusFile(_ relative: String) -> String { corpus.appendingPathComponent(relative).path }

    static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Loads a schema of any format from disk.
    static func loadSchema(_ path: String) throws -> SchemaLoad { SchemaLoader().load(try bytes(path), path: path) }

    static func specfile(_ text: String) -> SchemaLoad { SpecfileImporter().load(Array(text.utf8), path: "schema.xml") }

    static func manifest(_ subkeys: String, domain: String = "com.example.test") -> SchemaLoad {
        let text = """
            <plist version="1.0"><dict><key>pfm_domain</key><string>\(domain)</string>
            <key>pfm_subkeys</key><array>\(subkeys)</array></dict></plist>
            """
        return ManifestImporter().load(Array(text.utf8), path: "manifest.plist")
    }

    static func validate(
        _ config: String, against schema: ConfigSchema, options: ValidationOptions = ValidationOptions()
    ) -> [Diagnostic] {
        let document = PropertyListReader().read(Array(config.utf8), file: "config.plist")
        return Validator.validate(document, against: schema, options: options)
    }

    /// The 1-based line and byte column of the first occurrence of `needle` in `text`.
    static func position(of needle: String, in text: String) -> (line: Int, column: Int)? {
        guard let range = text.range(of: needle) else { return nil }
        let before = text[..<range.lowerBound]
        let line = before.filter { $0 == "\n" }.count + 1
        let lineStart = before.lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
        return (line, text[lineStart..<range.lowerBound].utf8.count + 1)
    }
}
