import ArgumentParser
import MDMConf
import MDMDiagnostics

struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check plist files (XML, binary or JSON) and report every problem with its position.",
        discussion: """
            Reports malformed XML, unknown elements, keys without values, values without keys, duplicate keys,
            whitespace inside <key>, malformed integers, reals, dates and base64, typographic quotes in the
            XML declaration, non-UTF-8 input, and hostile constructs (entity declarations, deep nesting,
            oversized input). Folders are searched for .plist, .mobileconfig, .xml and .json files.

            Exit codes: 0 no errors, 1 errors found (warnings too with --strict), 64 usage error,
            66 a file could not be read.
            """
    )

    @Argument(help: "Files or folders to check; - reads standard input.")
    var files: [String]

    @OptionGroup var report: ReportOptions
    @OptionGroup var limits: ReaderLimitOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file to lint") }
    }

    func run() throws {
        let paths = InputPaths.expand(files)
        let results = Linter(readerOptions: limits.readerOptions).lint(paths)
        var sources: [String: SourceText] = [:]
        for result in results { if let source = result.source { sources[result.report.path] = source } }
        let diagnosticReport = DiagnosticReport(files: results.map(\.report))
        report.print(diagnosticReport, sources: sources)
        if results.contains(where: \.unreadable) { throw ExitStatus.unreadableInput.exitCode }
        let failed = (report.strict ? diagnosticReport.strict() : diagnosticReport).files.contains { !$0.isValid }
        if failed { throw ExitStatus.findings.exitCode }
    }
}
