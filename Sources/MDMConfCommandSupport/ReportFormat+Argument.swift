import ArgumentParser
import MDMDiagnostics

extension ReportFormat: ExpressibleByArgument {}

/// `--format` and `--strict`, shared by the checking commands.
package struct ReportOptions: ParsableArguments {
    @Option(name: .long, help: "Output format: text, json, sarif or github.")
    package var format: ReportFormat = .text

    @Flag(name: .long, help: "Treat warnings as errors.")
    package var strict = false

    package init() {}

    package var settings: ReportSettings { ReportSettings(format: format, strict: strict) }
}

/// How a checking command prints its report.
package struct ReportSettings: Equatable, Sendable {
    package var format: ReportFormat
    package var strict: Bool

    package init(format: ReportFormat = .text, strict: Bool = false) {
        self.format = format
        self.strict = strict
    }

    /// Prints `report` on standard output in the chosen format, and a one-line summary on standard error
    /// for text.
    package func print(_ report: DiagnosticReport, sources: [String: SourceText]) {
        let shown = strict ? report.strict() : report
        let options = RenderOptions(color: Console.colorEnabled, toolVersion: mdmconfVersion, sources: sources)
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
