import ArgumentParser
import ConfigSchema
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics
import PropertyList

/// `--access public|internal` of `schema codegen`.
extension SwiftCodegen.Access: ExpressibleByArgument {}

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Inspect declared schemas.",
        subcommands: [Show.self, List.self, Find.self, Convert.self, Codegen.self]
    )

    /// `--path DIR` (repeatable) replaces the search path; without it, the standard one.
    static func discovery(_ paths: [String]) -> SchemaDiscovery {
        paths.isEmpty ? .standard() : SchemaDiscovery(folders: paths)
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the schemas on the search path: the id each declares and its file.",
            discussion: """
                The search path is MDMCONF_SCHEMA_PATH (folders separated by ':'), ./Schemas, then the bundled \
                Schemas/; --path replaces it. The first schema declaring an id wins, except that Apple's YAML \
                comes before a ProfileManifest of the same payload type, whose hints it takes ('hints'); later ones \
                are marked 'shadowed'. Ids are kept in an index under $XDG_CACHE_HOME/mdmconf, so a file is read again only \
                when it changed. Exit codes: 0 listed, 64 usage error.
                """
        )

        @Option(name: .long, help: "A folder to search instead of the standard path (repeatable).") var path: [String] =
            []

        func run() throws {
            let discovery = SchemaCommand.discovery(path)
            let candidates = discovery.candidates()
            var winners: Set<String> = []
            var rows: [(String, String, String)] = []
            for candidate in candidates where winners.insert(candidate.id).inserted {
                guard let found = discovery.find(candidate.id, in: candidates) else { continue }
                rows.append((candidate.id, "", found.schema.path))
                if let hints = found.hints { rows.append((candidate.id, "hints", hints.path)) }
                rows += found.shadowed.map { (candidate.id, "shadowed", $0.path) }
            }
            let width = rows.map(\.0.count).max() ?? 2
            var out =
                "ID".padding(toLength: width, withPad: " ", startingAt: 0)
                + "  \("".padding(toLength: 8, withPad: " ", startingAt: 0))  FILE\n"
            for (id, note, file) in rows.sorted(by: { $0.0 < $1.0 }) {
                out +=
                    id.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                    + note.padding(toLength: 8, withPad: " ", startingAt: 0) + "  \(file)\n"
            }
            Console.out(out)
            Console.error("\(winners.count) ids in \(rows.count) schema files\n")
        }
    }

    struct Find: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the schema file that declares an id (bundle id or preference domain).",
            discussion:
                """
                Where Apple's YAML and a ProfileManifest both declare the id, Apple's is printed and the manifest, \
                whose hints are added to it, follows on standard error ('hints from:'). Exit codes: 0 found (later \
                files declaring the id follow on standard error), 1 not found, 64 usage.
                """
        )

        @Argument(help: "The id: an app's bundle id or a ProfileManifest's pfm_domain.") var id: String
        @Option(name: .long, help: "A folder to search instead of the standard path (repeatable).") var path: [String] =
            []

        func run() throws {
            let discovery = SchemaCommand.discovery(path)
            guard let found = discovery.find(id, in: discovery.candidates()) else {
                Console.error("no schema on the search path declares '\(id)' (see mdmconf schema list)\n")
                throw ExitStatus.findings.exitCode
            }
            Console.out(found.schema.path + "\n")
            if let hints = found.hints { Console.error("hints from: \(hints.path)\n") }
            for later in found.shadowed { Console.error("shadowed: \(later.path)\n") }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a schema's keys as a table: type, required, default, constraints, description.",
            discussion: """
                Apple's schemas get a column per platform: the OS version that introduced each key, S when only \
                supervised devices take it, →V when version V removed it. --platform (with --os-version and \
                --enrollment) leaves out the keys that device does not accept. Exit codes: 0 shown, 64 usage error, \
                66 unreadable file or unknown id, 78 unusable schema.
                """
        )

        @Argument(help: "A schema file, or an app id to look up on the schema search path.")
        var schema: String

        @Option(name: .long, help: ArgumentHelp("An Android app's res/ folder, for its references.", valueName: "dir"))
        var res: String?

        @Option(
            name: .long,
            help: ArgumentHelp("Show only the keys this platform accepts (iOS, macOS …).", valueName: "name"))
        var platform: String?

        @Option(
            name: .customLong("os-version"),
            help: ArgumentHelp("With --platform: the OS version.", valueName: "version"))
        var osVersion: String?

        @Option(
            help: ArgumentHelp(
                "With --platform: how the device is enrolled (supervised, device, user, shared-ipad, dep).",
                valueName: "kind"))
        var enrollment: Enrollment?

        @OptionGroup var limits: ReaderLimitOptions

        func validate() throws {
            if osVersion != nil && platform == nil { throw ValidationError("--os-version needs --platform") }
            if enrollment != nil && platform == nil { throw ValidationError("--enrollment needs --platform") }
        }

        func run() throws {
            let schema = try SchemaCommand.load(self.schema, res: res, limits: limits)
            let table =
                platform.map { SchemaTable(schema, platform: $0, osVersion: osVersion, enrollment: enrollment) }
                ?? SchemaTable(schema)
            Console.out(table.render())
        }
    }

    /// The usable schema in a file, or declaring an id on the search path; exits 66 or 78 (with the findings) when
    /// there is none.
    static func load(_ fileOrID: String, res: String?, limits: ReaderLimitOptions) throws -> ConfigSchema {
        guard !InputPaths.isFile(fileOrID) else { return try loadFile(fileOrID, res: res, limits: limits) }
        let discovery = SchemaDiscovery.standard()
        guard let found = discovery.find(fileOrID, in: discovery.candidates()) else {
            Console.error("error: no schema file '\(fileOrID)' and no schema declares that id\n")
            throw ExitStatus.unreadableInput.exitCode
        }
        let schema = try loadFile(found.schema.path, res: res, limits: limits)
        guard let hints = found.hints else { return schema }
        return schema.adding(hintsOf: try loadFile(hints.path, res: res, limits: limits))
    }

    private static func loadFile(_ path: String, res: String?, limits: ReaderLimitOptions) throws -> ConfigSchema {
        let loaded: SchemaLoad
        do {
            loaded = try SchemaLoader(readerOptions: limits.readerOptions, androidResources: res).load(path).load
        } catch {
            Console.error("error: cannot read \(error.path): \(error.reason)\n")
            throw ExitStatus.unreadableInput.exitCode
        }
        guard let schema = loaded.usableSchema else {
            let errors = loaded.diagnostics.filter { $0.severity == .error }
            Console.error(DiagnosticReport(files: [FileReport(path: path, diagnostics: errors)]).rendered(as: .text))
            throw ExitStatus.invalidConfiguration.exitCode
        }
        return schema
    }

    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a schema in another schema format: Google Play's managed properties JSON.",
            discussion: """
                --to managed-properties writes the JSON array an EMM console reads from Google Play (key, type, \
                title, description, entries, defaultValue, nestedProperties), from an app_restrictions.xml with its \
                references resolved, or from any other schema whose keys have an Android restriction type (a key \
                of type real, date or data has none: it is left out and named on standard error). Exit codes: 0 \
                written, 64 usage error, 66 unreadable file or unknown id, 78 unusable schema.
                """
        )

        enum Target: String, ExpressibleByArgument, CaseIterable {
            case managedProperties = "managed-properties"
        }

        @Argument(help: "A schema file, or an app id to look up on the schema search path.")
        var schema: String

        @Option(name: .long, help: "The format to write: managed-properties.")
        var to: Target

        @Option(name: .long, help: ArgumentHelp("An Android app's res/ folder, for its references.", valueName: "dir"))
        var res: String?

        @OptionGroup var limits: ReaderLimitOptions

        func run() throws {
            let schema = try SchemaCommand.load(self.schema, res: res, limits: limits)
            let (json, skipped) = ManagedPropertiesWriter.json(schema)
            for key in skipped { Console.error("warning: \(key.keyPath) is left out: \(key.reason)\n") }
            Console.out(json)
        }
    }

    struct Codegen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a Swift type that decodes the configurations of a schema.",
            discussion: """
                --swift writes a Decodable, Sendable, Equatable struct for any schema mdmconf reads (AppConfig \
                specfile, ProfileManifest, Apple YAML, Android restrictions): a nested struct for each dictionary, \
                an enum for each closed list of string or integer values, optionals for keys neither required nor \
                defaulted, defaults applied when a key is absent, documentation from titles and descriptions, and \
                CodingKeys for keys that are not Swift names. The type decodes the dictionary of \
                com.apple.configuration.managed (init(managedConfiguration:)), plist or JSON bytes \
                (init(bytes:)), and MDMConfClient's configuration (configuration.decode(T.self)). Exit codes: 0 \
                written, 64 usage error, 66 unreadable file or unknown id, 78 unusable schema.
                """
        )

        @Argument(help: "A schema file, or an app id to look up on the schema search path.")
        var schema: String

        @Flag(name: .long, help: "Write Swift (the one language so far).")
        var swift = false

        @Option(
            name: .customLong("type-name"),
            help: ArgumentHelp("The struct's name (default: from the id).", valueName: "name"))
        var typeName: String?

        @Option(name: .long, help: "public or internal.")
        var access: SwiftCodegen.Access = .public

        @Option(name: .long, help: ArgumentHelp("An Android app's res/ folder, for its references.", valueName: "dir"))
        var res: String?

        @OptionGroup var limits: ReaderLimitOptions

        func validate() throws {
            if !swift { throw ValidationError("name the language: --swift") }
            if let typeName, !SwiftCodegen.isTypeName(typeName) {
                throw ValidationError("--type-name must be a Swift type name (a letter or _, then letters, digits, _)")
            }
        }

        func run() throws {
            let schema = try SchemaCommand.load(self.schema, res: res, limits: limits)
            let name = typeName ?? SwiftCodegen.defaultTypeName(for: schema)
            Console.out(SwiftCodegen(typeName: name, access: access).generate(schema))
        }
    }
}
