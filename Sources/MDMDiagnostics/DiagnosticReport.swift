/// The schema a file was checked against, as reported in every output format.
public struct SchemaReference: Sendable, Hashable, Codable {
    public var path: String
    /// `appconfig`, `manifest`, or another importer's name.
    public var format: String
    public var id: String?

    public init(path: String, format: String, id: String?) {
        self.path = path
        self.format = format
        self.id = id
    }
}

/// Everything found about one input file.
public struct FileReport: Sendable, Hashable {
    public var path: String
    public var schema: SchemaReference?
    /// `document`, `fragment` or `binary` for plists; nil when the file could not be read.
    public var shape: String?
    public var diagnostics: [Diagnostic]

    public init(path: String, schema: SchemaReference? = nil, shape: String? = nil, diagnostics: [Diagnostic] = []) {
        self.path = path
        self.schema = schema
        self.shape = shape
        self.diagnostics = diagnostics
    }

    /// False exactly when the file has an error (warnings count once `--strict` has raised them).
    public var isValid: Bool { !diagnostics.hasErrors }
}

/// The result of one run over one or more files, in the order the files were given.
public struct DiagnosticReport: Sendable, Hashable {
    public var files: [FileReport]

    public init(files: [FileReport]) { self.files = files }

    public struct Summary: Sendable, Hashable {
        public var files: Int
        public var valid: Int
        public var errors: Int
        public var warnings: Int
        public var infos: Int
    }

    public var summary: Summary {
        let all = files.flatMap(\.diagnostics)
        return Summary(
            files: files.count,
            valid: files.filter(\.isValid).count,
            errors: all.count(of: .error),
            warnings: all.count(of: .warning),
            infos: all.count(of: .info)
        )
    }

    /// Every finding raised to error where it was a warning (`--strict`).
    public func strict() -> DiagnosticReport {
        DiagnosticReport(
            files: files.map { file in
                var copy = file
                copy.diagnostics = file.diagnostics.map { $0.strict() }
                return copy
            }
        )
    }
}
