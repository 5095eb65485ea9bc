import ArgumentParser
import DevicePolicy
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics
import PropertyList

struct PolicyLintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Lint a profile set: kiosk conflicts, list overlaps, URL pattern surprises, Wi-Fi lock-outs, …",
        discussion:
            "Exit codes: 0 no error-severity lint, 1 an error lint, 64 usage, 66 missing file, 78 invalid profile."
    )

    @Option(
        name: .long,
        help: ArgumentHelp("A profile file or folder (repeatable); - reads standard input.", valueName: "path"))
    var profile: [String] = []

    @Flag(name: .customLong("skip-invalid"), help: "Drop invalid profiles instead of exit 78.") var skipInvalid = false
    @Option(name: .long, help: "Output format: text, json, sarif or github.") var format: ReportFormat = .text
    @OptionGroup var limits: ReaderLimitOptions

    func run() throws {
        let documents: [ProfileDocument]
        do {
            documents = try ProfileInputs.load(profile, options: limits.readerOptions)
        } catch {
            Console.error("error: cannot read \(error.path): \(error.reason)\n")
            throw ExitStatus.unreadableInput.exitCode
        }
        let set = ProfileSet(documents: documents, skipInvalid: skipInvalid)
        let lints = set.isUsable ? PolicyEngine(profileSet: set).lints : []
        let findings = lints + set.diagnostics
        let errors = lints.filter { $0.diagnostic.severity == .error }.count
        let documentErrors = set.diagnostics.filter { $0.diagnostic.severity == .error }.count
        if format == .json {
            let summary: JSONValue = .object([
                ("errors", .integer(errors)),
                ("warnings", .integer(lints.filter { $0.diagnostic.severity == .warning }.count)),
                ("infos", .integer(lints.filter { $0.diagnostic.severity == .info }.count)),
            ])
            let document: JSONValue = .object([
                ("profiles", .array(set.profiles.map(\.json))),
                ("lints", .array(lints.map(\.json))), ("diagnostics", .array(set.diagnostics.map(\.json))),
                ("summary", summary),
            ])
            Console.out(document.serialized())
        } else {
            var byFile: [String: [Diagnostic]] = [:]
            var order: [String] = []
            for finding in findings {
                let file = finding.diagnostic.file ?? "-"
                if byFile[file] == nil { order.append(file) }
                byFile[file, default: []].append(finding.diagnostic)
            }
            let report = DiagnosticReport(files: order.map { FileReport(path: $0, diagnostics: byFile[$0] ?? []) })
            let options = RenderOptions(
                color: Console.colorEnabled, toolVersion: mdmconfVersion,
                sources: format == .text ? PolicyText.sources(of: findings) : [:])
            Console.out(report.rendered(as: format, options: options))
            if format == .text {
                Console.error(
                    "\(documents.count) profile documents: \(errors) lint errors, \(documentErrors) document errors, "
                        + "\(lints.filter { $0.diagnostic.severity == .warning }.count) warnings\n")
            }
        }
        if !set.isUsable { throw ExitStatus.invalidConfiguration.exitCode }
        if errors > 0 { throw ExitStatus.findings.exitCode }
    }
}

struct PolicyTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run a table of policy queries and the answers expected of them.",
        discussion: """
            CASES is a JSON array of cases (or {"cases": [...]}), or a plist of that structure. Each case has id, \
            profiles (paths relative to CASES), query {type, arg, ssidHex, hidden, at}, skipInvalid and expect \
            {exitCode, decision, reasons, reasonsAbsent, profilesCited, profilesNotCited, citedBy, lints, \
            advisories, diagnostics, inactive, fields}. Prints a FAIL line per failing case, then "N passed, M failed".

            Exit codes: 0 every case passed, 1 a case failed, 66 CASES missing, 78 CASES invalid.
            """
    )

    @Argument(help: "The cases file (JSON or plist).") var cases: String
    @Flag(name: .long, help: "Also list the cases that pass.") var verbose = false
    @OptionGroup var limits: ReaderLimitOptions

    func run() throws {
        let suite: PolicyTestSuite
        do {
            suite = try PolicyTestSuite.load(cases, options: limits.readerOptions)
        } catch let error as InputError {
            Console.error("error: cannot read \(error.path): \(error.reason)\n")
            throw ExitStatus.unreadableInput.exitCode
        } catch let error as PolicyTestSuite.InvalidFile {
            let renderer = TextRenderer(options: RenderOptions(color: Console.stderrColorEnabled))
            for diagnostic in error.diagnostics { Console.error(renderer.render(diagnostic)) }
            throw ExitStatus.invalidConfiguration.exitCode
        }
        let outcomes = suite.run(options: limits.readerOptions)
        var out = ""
        for outcome in outcomes {
            if outcome.passed {
                if verbose { out += "PASS \(outcome.id)\n" }
            } else {
                out += "FAIL \(outcome.id): \(outcome.failures.joined(separator: "; "))\n"
            }
        }
        let failed = outcomes.filter { !$0.passed }.count
        out += "\(outcomes.count - failed) passed, \(failed) failed\n"
        Console.out(out)
        if failed > 0 { throw ExitStatus.findings.exitCode }
    }
}
