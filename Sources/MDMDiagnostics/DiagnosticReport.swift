/// The schema a file was checked against, as reported in every output format.
public struct SchemaReference: Sendable, Hashable, Codable {
    /// The schema file's path.
    public var path: String
    /// `appconfig`, `manifest`, or another importer's name.
    public var format: String
    /// The schema's own identifier (a manifest's domain, a specfile's bundle id), when it has one.
    public var id: String?

    /// A reference to the schema in `path`.
    public init(path: String, format: String, id: String?) {
        self.path = path
        self.format = format
        self.id = id
    }
}

/// Everything found about one input file.
public struct FileReport: Sendable, Hashable {
    /// The file's path as given.
    public var path: String
    /// The schema it was checked against; nil for a lint without one.
    public var schema: SchemaReference?
    /// `document`, `fragment` or `binary` for plists; nil when the file could not be read.
    public var shape: String?
    /// Every finding about the file, in the order they were found.
    public var diagnostics: [Diagnostic]

    /// The report of the file at `path`.
    public init(path: String, schema: SchemaReference? = nil, shape: String? = nil, diagnostics: [Diagnostic] = []) {
        (self.path, self.schema, self.shape, self.diagnostics) = (path, schema, shape, diagnostics)
    }

    /// False exactly when the file has an error (warnings count once `--strict` has raised them).
    public var isValid: Bool { !diagnostics.hasErrors }
}

/// The result of one run over one or more files, in the order the files were given.
public struct DiagnosticReport: Sendable, Hashable {
    /// One report per file.
    public var files: [FileReport]

    /// The report of a run over `files`.
    public init(files: [FileReport]) { self.files = files }

    /// The counts of the last line of the text output and of the JSON `summary`.
    public struct Summary: Sendable, Hashable {
        /// Files checked.
        public var files: Int
        /// Files with no error.
        public var valid: Int
        /// Errors over all files.
        public var errors: Int
        /// Warnings over all files.
        public var warnings: Int
        /// Informational findings over all files.
        public var infos: Int
    }

    /// The counts of this run.
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
