import ArgumentParser
import ConfigSchema
import MDMConf
import MDMDiagnostics
import PropertyList

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Inspect declared schemas.",
        subcommands: [Show.self]
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a schema's keys as a table: type, required, default, constraints, description.",
            discussion: "Exit codes: 0 shown, 64 usage error, 66 unreadable file or unknown id, 78 unusable schema."
        )

        @Argument(help: "A schema file, or an app id to look up on the schema search path.")
        var schema: String

        @OptionGroup var limits: ReaderLimitOptions

        func run() throws {
            var path = schema
            if !InputPaths.isFile(schema) {
                let discovery = SchemaDiscovery.standard()
                guard let found = discovery.find(schema, in: discovery.candidates()) else {
                    Console.error("error: no schema file '\(schema)' and no schema declares that id\n")
                    throw ExitStatus.unreadableInput.exitCode
                }
                path = found.schema.path
            }
            let loaded: SchemaLoad
            do {
                loaded = try SchemaLoader(readerOptions: limits.readerOptions).load(path).load
            } catch {
                Console.error("error: cannot read \(error.path): \(error.reason)\n")
                throw ExitStatus.unreadableInput.exitCode
            }
            guard let schema = loaded.usableSchema else {
                let errors = loaded.diagnostics.filter { $0.severity == .error }
                Console.error(
                    DiagnosticReport(files: [FileReport(path: path, diagnostics: errors)]).rendered(as: .text))
                throw ExitStatus.invalidConfiguration.exitCode
            }
            Console.out(SchemaTable(schema).render())
        }
    }
}
