import MDMDiagnostics

/// One file's findings and, when some have lines, its source for quoting them.
public struct CheckedFile: Sendable {
    /// The file's findings.
    public var report: FileReport
    /// Its bytes, when it was read, for quoting lines.
    public var source: SourceText?
    /// The file could not be read at all (exit 66).
    public var unreadable: Bool
    /// A declarative-management declaration's identity and references, for checking the files as a set.
    public var declaration: DeclarationSummary?

    /// The result of checking one file.
    public init(report: FileReport, source: SourceText?, unreadable: Bool) {
        self.report = report
        self.source = source
        self.unreadable = unreadable
    }

    /// The report with `source` attached when a finding needs it.
    static func make(_ report: FileReport, bytes: [UInt8]) -> CheckedFile {
        let quoted = report.diagnostics.contains { $0.line != nil && !$0.sensitive }
        return CheckedFile(report: report, source: quoted ? SourceText(bytes) : nil, unreadable: false)
    }
}

/// What the renderers need of a run's files.
extension Array where Element == CheckedFile {
    /// Sources by path, for the text renderer.
    public var sources: [String: SourceText] {
        var result: [String: SourceText] = [:]
        for file in self { if let source = file.source { result[file.report.path] = source } }
        return result
    }
}
