import ArgumentParser
import MDMDiagnostics

extension ReportFormat: ExpressibleByArgument {}

/// `--format` and `--strict`, shared by the checking commands.
struct ReportOptions: ParsableArguments {
    @Option(name: .long, help: "Output format: text, json, sarif or github.")
    var format: ReportFormat = .text

    @Flag(name: .long, help: "Treat warnings as errors.")
    var strict = false

    /// Prints `report` on standard output in the chosen format, and a one-line summary on standard error
    /// for text.
    func print(_ report: DiagnosticReport, sources: [String: SourceText]) {
        let shown = strict ? report.strict() : report
        let options = RenderOptions(
            color: Console.colorEnabled, toolVersion: MDMConfCommand.version, sources: sources)
        Console.out(shown.rendered(as: format, options: options))
        if format == .text {
            let summary = shown.summary
            Console.error(
                "\(summary.files) \(summary.files == 1 ? "file" : "files") checked: \(summary.errors) "
                    + "\(summary.errors == 1 ? "error" : "errors"), \(summary.warnings) "
                    + "\(summary.warnings == 1 ? "warning" : "warnings")\n")
        }
    }
}
