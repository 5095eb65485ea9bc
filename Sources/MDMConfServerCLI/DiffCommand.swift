import ArgumentParser
import CivilTime
import ConfigSchema
import Fleet
import Foundation
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics
import PropertyList

struct DiffCommand: ParsableCommand {
    static let configuration = ServerCommands.diff

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Argument(help: "The old plist, catalog folder or generation number.") var old: String
    @Argument(help: "The new plist, catalog folder or generation number.") var new: String
    @Option(name: .long, help: "The schema of two configurations (for sensitive keys).") var schema: String?
    @Option(name: .long, help: "The fleet store holding the generations (sqlite:PATH or postgres://…).") var store:
        String?
    @Option(name: .long, help: "text or json.") var format: Format = .text

    func run() throws {
        let code = try BlockingTask.run { try await diff() }
        if code != 0 { throw ExitCode(code) }
    }

    private func diff() async throws -> Int32 {
        if let oldGeneration = Int(old), let newGeneration = Int(new) {
            guard let store else {
                Console.error("error: \(old) and \(new) are generation numbers: name the store with --store\n")
                return ExitStatus.usage.rawValue
            }
            return try await StoredCatalogs.withStore(store) { catalogs in
                guard let a = try await catalogs.files(of: oldGeneration),
                    let b = try await catalogs.files(of: newGeneration)
                else {
                    Console.error(
                        "error: generation \(oldGeneration) or \(newGeneration) is not in the store (see mdmconf history)\n"
                    )
                    return ExitStatus.invalidConfiguration.rawValue
                }
                let oldCatalog = StoredCatalogs.load(a)
                let newCatalog = StoredCatalogs.load(b)
                let impact = try await StoredCatalogs.impact(catalogs.store, oldCatalog, newCatalog)
                return print(CatalogDiff.compare(a, b, oldCatalog: oldCatalog, newCatalog: newCatalog), impact: impact)
            }
        }
        var isFolder: [Bool] = []
        for path in [old, new] {
            var folder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &folder) else {
                Console.error("error: \(path): no such file or folder\n")
                return ExitStatus.unreadableInput.rawValue
            }
            isFolder.append(folder.boolValue)
        }
        guard isFolder[0] == isFolder[1] else {
            Console.error("error: compare two plists or two catalog folders, not a file with a folder\n")
            return ExitStatus.usage.rawValue
        }
        if isFolder[0] {
            let a: CatalogFiles
            let b: CatalogFiles
            do {
                a = try CatalogFiles.read(folder: old)
                b = try CatalogFiles.read(folder: new)
            } catch {
                Console.error("error: \(error.path): \(error.reason)\n")
                return ExitStatus.unreadableInput.rawValue
            }
            let loader = CatalogLoader()
            let oldCatalog = try? loader.load(old).get()
            let newCatalog = try? loader.load(new).get()
            for (path, catalog) in [(old, oldCatalog), (new, newCatalog)] where catalog == nil {
                Console.error(
                    "note: \(path) does not load as a catalog (mdmconf validate shows why): who is affected is not computed\n"
                )
            }
            let diff = CatalogDiff.compare(a, b, oldCatalog: oldCatalog, newCatalog: newCatalog)
            guard let store else { return print(diff) }
            return try await StoredCatalogs.withStore(store) { catalogs in
                print(diff, impact: try await StoredCatalogs.impact(catalogs.store, oldCatalog, newCatalog))
            }
        }
        var values: [PlistValue] = []
        for path in [old, new] {
            let document: PlistDocument
            do {
                guard case .bytes(let bytes) = try InputFile.read(path, limit: 64 << 20) else {
                    Console.error("error: \(path): larger than 64 MiB\n")
                    return ExitStatus.invalidConfiguration.rawValue
                }
                document = PropertyListReader().read(bytes, file: path)
            } catch {
                Console.error("error: \(error.path): \(error.reason)\n")
                return ExitStatus.unreadableInput.rawValue
            }
            guard !document.hasErrors, let root = document.root else {
                let report = DiagnosticReport(files: [FileReport(path: path, diagnostics: document.diagnostics)])
                Console.error(TextRenderer(options: RenderOptions(color: Console.stderrColorEnabled)).render(report))
                return ExitStatus.invalidConfiguration.rawValue
            }
            values.append(root.value)
        }
        var sensitive: (@Sendable (KeyPath) -> Bool)?
        if let schema {
            guard let loaded = try? SchemaLoader().load(schema).load.schema else {
                Console.error("error: \(schema) is not a usable schema (mdmconf lint shows why)\n")
                return ExitStatus.invalidConfiguration.rawValue
            }
            sensitive = { loaded.isSensitive($0) || PlistDiff.looksSecret($0) }
        }
        let changes = PlistDiff(isSensitive: sensitive).changes(from: values[0], to: values[1])
        switch format {
        case .json:
            Console.out(
                JSONValue.object([("equal", .bool(changes.isEmpty)), ("changes", .array(changes.map(\.json)))])
                    .serialized())
        case .text:
            Console.out(changes.map { $0.line + "\n" }.joined())
            Console.error(changes.isEmpty ? "no differences\n" : "\(changes.count) changes\n")
        }
        return changes.isEmpty ? 0 : ExitStatus.findings.rawValue
    }

    /// The diff, and with a store what it does to the fleet it knows.
    private func print(_ diff: CatalogDiff, impact: FleetImpact? = nil) -> Int32 {
        switch format {
        case .json:
            var document = diff.json
            if case .object(let items) = document { document = .object(items + [("fleet", impact?.json ?? .null)]) }
            Console.out(document.serialized())
        case .text:
            Console.out(diff.text)
            if let impact, !diff.isEmpty {
                Console.out("the fleet in the store, judged now:\n" + impact.lines.map { "  \($0)\n" }.joined())
            }
        }
        return diff.isEmpty ? 0 : ExitStatus.findings.rawValue
    }
}
