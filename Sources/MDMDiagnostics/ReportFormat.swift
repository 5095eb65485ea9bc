/// The output formats every checking command offers (`--format`).
public enum ReportFormat: String, Sendable, CaseIterable {
    /// Compiler-style lines with the source quoted (`TextRenderer`).
    case text
    /// One JSON document with every file and finding (`JSONRenderer`).
    case json
    /// SARIF 2.1.0 for code scanning (`SARIFRenderer`).
    case sarif
    /// GitHub Actions annotations (`GitHubRenderer`).
    case github
}

/// Options shared by the renderers.
public struct RenderOptions: Sendable {
    /// ANSI colour in text output (only on a terminal with `NO_COLOR` unset).
    public var color: Bool
    /// The tool version written into SARIF.
    public var toolVersion: String
    /// The source of each file, by path, for quoting the offending line in text output.
    public var sources: [String: SourceText]

    /// Options for the renderers; the defaults suit tests and pipes.
    public init(color: Bool = false, toolVersion: String = "0.0.0", sources: [String: SourceText] = [:]) {
        self.color = color
        self.toolVersion = toolVersion
        self.sources = sources
    }
}

extension DiagnosticReport {
    /// The report in `format`.
    public func rendered(as format: ReportFormat, options: RenderOptions = RenderOptions()) -> String {
        switch format {
        case .text: TextRenderer(options: options).render(self)
        case .json: JSONRenderer().render(self).serialized()
        case .sarif: SARIFRenderer(toolVersion: options.toolVersion).render(self).serialized()
        case .github: GitHubRenderer().render(self)
        }
    }
}
