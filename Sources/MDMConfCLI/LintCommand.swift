import ArgumentParser
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics
import PropertyList

struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract:
            "Check schemas (AppConfig specfiles, ProfileManifests, Apple YAML, Android restrictions) and plist files, reporting every problem.",
        discussion: """
            Specfiles get the XSD check and every semantic check (duplicate keyName, version, bundle id,
            defaults that break their own constraints, patterns that do not compile, min > max, presentation
            fields, locales, variables); ProfileManifests the pfm_* checks (unknown pfm_ keys, string bounds,
            bad types, pfm_format); Android's app_restrictions.xml every check of Android Lint's ValidRestrictions \
            and the defects it misses (entries and entryValues of different lengths, defaults outside the \
            choices), with @string/ and @array/ references resolved from the app's res/ folder (or --res). Any other plist gets the reader's checks: malformed XML, unknown elements, keys without values, values without keys, duplicate keys,
            whitespace inside <key>, malformed integers, reals, dates and base64, typographic quotes in the
            XML declaration, non-UTF-8 input, and hostile constructs (entity declarations, deep nesting,
            oversized input). Folders are searched for .plist, .mobileconfig, .xml and .json files.

            Exit codes: 0 no errors, 1 errors found (warnings too with --strict), 64 usage error,
            66 a file could not be read.
            """
    )

    @Argument(help: "Files or folders to check; - reads standard input.")
    var files: [String]

    @Option(
        name: .long,
        help: ArgumentHelp(
            "An Android app's res/ folder, for the @string/ and @array/ references of app_restrictions.xml files.",
            valueName: "dir"))
    var res: String?

    @OptionGroup var report: ReportOptions
    @OptionGroup var limits: ReaderLimitOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file to lint") }
    }

    var settings: Lint { Lint(files: files, res: res, report: report.settings, maxSize: limits.maxSize.bytes) }

    func run() throws { try settings.run() }
}

/// What `mdmconf lint` was asked, however its arguments were read (``QuickArguments`` or ArgumentParser).
struct Lint: Equatable {
    var files: [String]
    var res: String?
    var report: ReportSettings
    var maxSize: Int

    func run() throws {
        let readerOptions = ReaderLimitOptions.readerOptions(maxSize: maxSize)
        let paths = InputPaths.expand(files)
        let results = Linter(readerOptions: readerOptions, discovery: .standard(), androidResources: res).lint(paths)
        let diagnosticReport = DiagnosticReport(files: results.map(\.report))
        report.print(diagnosticReport, sources: results.sources)
        if results.contains(where: \.unreadable) { throw ExitStatus.unreadableInput.exitCode }
        let failed = (report.strict ? diagnosticReport.strict() : diagnosticReport).files.contains { !$0.isValid }
        if failed { throw ExitStatus.findings.exitCode }
    }
}
