import ConfigSchema
import Foundation
import Testing

/// The binary form of a schema gives back exactly the schema the importer made: every field of every key, for every
/// schema the project ships and every one of the corpus (Apple's YAML, ProfileManifests, specfiles), and damaged
/// bytes are refused rather than read as another schema.
@Suite("Compiled schemas")
struct CompiledSchemaTests {
    /// Every schema file of `Schemas/` and the corpus, with the importer's schema.
    static func schemas() throws -> [(path: String, schema: ConfigSchema)] {
        var folders = [Support.packageRoot.appendingPathComponent("Schemas").path]
        for corpus in [
            "apple-device-management/mdm", "apple-device-management/declarative", "apple-device-management/other",
            "manifests", "specfiles",
        ] {
            let folder = Support.corpus.appendingPathComponent(corpus).path
            if FileManager.default.fileExists(atPath: folder) { folders.append(folder) }
        }
        var found: [(String, ConfigSchema)] = []
        for folder in folders {
            let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
            for file in files.sorted() where [".yaml", ".plist", ".xml", ".json"].contains(where: file.hasSuffix) {
                let path = folder + "/" + file
                guard let schema = try Support.loadSchema(path).schema else { continue }
                found.append((path, schema))
            }
        }
        return found
    }

    @Test("every schema of the project and the corpus comes back field for field")
    func roundTrip() throws {
        let all = try Self.schemas()
        // Apple's ~300 YAML files, the manifests and specfiles of the corpus, and the bundled schemas.
        #expect(all.count > 300)
        var formats: Set<String> = []
        for (path, schema) in all {
            formats.insert(schema.format.rawValue)
            let bytes = CompiledSchema.encode(schema)
            let decoded = try CompiledSchema.decode(bytes, path: path)
            let (before, after) = (Self.canonical(schema), Self.canonical(decoded))
            #expect(before == after, "\(path): \(Self.firstDifference(before, after))")
            #expect(CompiledSchema.encode(decoded) == bytes, "\(path)")
        }
        #expect(formats.isSuperset(of: ["apple", "manifest", "appconfig", "android"]))
    }

    @Test("truncated or damaged bytes are refused or read, never a crash")
    func damaged() throws {
        let path = Support.corpusFile("apple-device-management/mdm/profiles/com.apple.wifi.managed.yaml")
        guard FileManager.default.fileExists(atPath: path) else { return }
        let schema = try #require(try Support.loadSchema(path).schema)
        let bytes = CompiledSchema.encode(schema)
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 500)) {
            #expect(throws: CompiledSchemaError.self) { try CompiledSchema.decode(Array(bytes[..<length]), path: path) }
        }
        // A newer form is not read as this one.
        var newer = bytes
        newer[0] = UInt8(CompiledSchema.version + 1)
        #expect(throws: CompiledSchemaError.self) { try CompiledSchema.decode(newer, path: path) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var flipped = bytes
            flipped[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
            _ = try? CompiledSchema.decode(flipped, path: path)
        }
    }

    /// Where two descriptions part, with a little of each around it.
    static func firstDifference(_ a: String, _ b: String) -> String {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        let at = zip(x.indices, zip(x, y)).first { $1.0 != $1.1 }?.0 ?? min(x.count, y.count)
        func around(_ bytes: [UInt8]) -> String {
            String(decoding: bytes[max(0, at - 120)..<min(bytes.count, at + 80)], as: UTF8.self)
        }
        return "imported …\(around(x))… read back …\(around(y))…"
    }

    /// A description of `value` and everything it holds, with dictionaries and sets in sorted order, so two values
    /// built differently compare equal exactly when every stored field is.
    static func canonical(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            return mirror.children.first.map { "some(\(canonical($0.value)))" } ?? "nil"
        case .dictionary:
            let entries = mirror.children.map { entry -> String in
                let pair = Array(Mirror(reflecting: entry.value).children)
                return "\(canonical(pair[0].value)): \(canonical(pair[1].value))"
            }
            return "[" + entries.sorted().joined(separator: ", ") + "]"
        case .set:
            return "{" + mirror.children.map { canonical($0.value) }.sorted().joined(separator: ", ") + "}"
        case .collection:
            return "[" + mirror.children.map { canonical($0.value) }.joined(separator: ", ") + "]"
        case .enum where mirror.children.isEmpty:
            return "\(value)"
        case .struct, .class, .enum, .tuple:
            let fields = mirror.children.map { "\($0.label ?? "_"): \(canonical($0.value))" }
            return "\(type(of: value))(" + fields.joined(separator: ", ") + ")"
        default:
            return "\(value)"
        }
    }
}
