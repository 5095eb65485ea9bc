import MDMDiagnostics
import PropertyList

/// Loads an update-policy document (XML, binary or JSON; detected from content) and reports every error and
/// warning of *Update policies* at once, each with its position and key path.
public struct PolicyLoader: Sendable {
    /// The limits the document is read with.
    public var readerOptions: PlistReaderOptions

    /// A loader reading with `readerOptions`.
    public init(readerOptions: PlistReaderOptions = PlistReaderOptions()) { self.readerOptions = readerOptions }

    /// A loaded document, or nil with the reasons it is unusable.
    public struct Result: Sendable {
        /// The document, when it has no errors.
        public var document: PolicyDocument?
        /// Every finding, errors and warnings.
        public var diagnostics: [Diagnostic]
    }

    /// True when `document` looks like a policy document (a root dict with a `policies` array).
    public static func recognizes(_ document: PlistDocument) -> Bool {
        guard case .dictionary(let dict)? = document.root?.value, case .array? = dict["policies"]?.value else {
            return false
        }
        return true
    }

    /// The app a catalog file at `…/apps/<bundleId>/update-policy.*` belongs to.
    public static func catalogApp(forPath path: String) -> String? {
        let parts = path.split(separator: "/")
        guard parts.count >= 3, parts[parts.count - 1].hasPrefix("update-policy."), parts[parts.count - 3] == "apps"
        else { return nil }
        return String(parts[parts.count - 2])
    }

    /// The policy document in `bytes`, findings reported against `file`.
    public func load(_ bytes: [UInt8], file: String) -> Result {
        let document = PropertyListReader(options: readerOptions).read(bytes, file: file)
        return load(document, source: bytes)
    }

    /// The policy document already read into `document` (`source` for quoting lines).
    public func load(_ document: PlistDocument, source: [UInt8]) -> Result {
        var reader = PolicyReader(
            file: document.file, source: source, catalogApp: Self.catalogApp(forPath: document.file))
        reader.diagnostics = document.diagnostics.map { diagnostic in
            // JSON syntax problems and duplicate JSON keys are malformed documents; XML keeps the MC1xxx codes.
            guard document.shape == .json else { return diagnostic }
            var copy = diagnostic
            copy.code = UpdatePolicyCode.malformedDocument
            return copy
        }
        guard !document.hasErrors, let root = document.root else {
            if document.root == nil && !document.hasErrors {
                reader.error(
                    UpdatePolicyCode.malformedDocument, "the document holds no value", at: .unknown, path: .root)
            }
            return Result(document: nil, diagnostics: reader.diagnostics)
        }
        let loaded = reader.document(root)
        // Keys are read in a fixed order; findings are reported in document order.
        let ordered = reader.diagnostics.enumerated().sorted { a, b in
            let pa = (a.element.line ?? 0, a.element.column ?? 0, a.offset)
            let pb = (b.element.line ?? 0, b.element.column ?? 0, b.offset)
            return pa < pb
        }.map(\.element)
        return Result(document: reader.diagnostics.hasErrors ? nil : loaded, diagnostics: ordered)
    }
}
