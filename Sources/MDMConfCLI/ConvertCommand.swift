import ArgumentParser
import MDMConfCommandSupport
import MDMDiagnostics
import PropertyList

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Print the canonical XML plist or JSON form of a plist (XML, binary or JSON) document.",
        discussion: """
            XML output is Apple's canonical form (tabs, Apple's DOCTYPE); reading it back with any conforming
            reader gives an equal value. JSON maps dict→object, integer and real→number (nan and inf as
            strings), date→RFC 3339 string, data→base64 string.

            A document with errors is not converted: its findings go to standard error and nothing is
            written. Exit codes: 0 converted, 1 the input has errors, 64 usage error, 66 unreadable input.
            """
    )

    enum Target: String, ExpressibleByArgument, CaseIterable {
        case xml
        case json
    }

    @Argument(help: "The document to convert; - reads standard input.")
    var file: String

    @Option(name: .long, help: "Output form: xml or json.")
    var to: Target

    @OptionGroup var limits: ReaderLimitOptions

    func run() throws {
        let reader = PropertyListReader(options: limits.readerOptions)
        let document: PlistDocument
        let source: [UInt8]
        do {
            (document, source) = try reader.readFile(file)
        } catch {
            printFindings([error.diagnostic], file: error.path, source: [])
            throw ExitStatus.unreadableInput.exitCode
        }
        printFindings(document.diagnostics, file: document.file, source: source)
        guard !document.hasErrors, let root = document.root else { throw ExitStatus.findings.exitCode }
        switch to {
        case .json:
            Console.out(PlistWriter.json(root.value))
        case .xml:
            do {
                Console.out(try PlistWriter.xml(root.value))
            } catch {
                var diagnostic = error.diagnostic
                diagnostic.location = SourceLocation(file: document.file)
                printFindings([diagnostic], file: document.file, source: [])
                throw ExitStatus.findings.exitCode
            }
        }
    }

    private func printFindings(_ diagnostics: [Diagnostic], file: String, source: [UInt8]) {
        guard !diagnostics.isEmpty else { return }
        let options = RenderOptions(color: Console.stderrColorEnabled, sources: [file: SourceText(source)])
        let report = DiagnosticReport(files: [FileReport(path: file, diagnostics: diagnostics)])
        Console.error(TextRenderer(options: options).render(report))
    }
}
