import MDMDiagnostics

/// Limits that keep hostile input from exhausting time or memory. The defaults follow libxml2's own
/// limits without `XML_PARSE_HUGE`.
public struct PlistReaderOptions: Sendable {
    /// Largest input accepted, in bytes (default 64 MiB).
    public var maxInputSize: Int
    /// Most elements (XML) or objects (binary) in one document (default 10 million).
    public var maxNodes: Int
    /// Deepest nesting of elements or containers (default 256).
    public var maxDepth: Int
    /// Largest single text node, in bytes (default 10,000,000, libxml2's `XML_MAX_TEXT_LENGTH`).
    public var maxTextLength: Int

    /// Limits, each with the default its property names.
    public init(
        maxInputSize: Int = 64 * 1024 * 1024,
        maxNodes: Int = 10_000_000,
        maxDepth: Int = 256,
        maxTextLength: Int = 10_000_000
    ) {
        (self.maxInputSize, self.maxNodes, self.maxDepth) = (maxInputSize, maxNodes, maxDepth)
        self.maxTextLength = maxTextLength
    }
}

/// The form an input had.
public enum PlistShape: String, Sendable, Hashable {
    /// A full XML document: `<plist>` root, usually with an XML declaration and DOCTYPE.
    case document
    /// A bare value such as `<dict>…</dict>`, as consoles paste them.
    case fragment
    /// A `bplist00` binary property list.
    case binary
    /// A JSON document.
    case json
}

/// What reading one input produced: the value (when there is one), its shape, and every finding.
public struct PlistDocument: Sendable {
    /// The name used for the input in diagnostics.
    public var file: String
    /// The root value; nil when the input held no usable value.
    public var root: PlistNode?
    /// Which format it was, when it could be told.
    public var shape: PlistShape?
    /// Every finding of the reader.
    public var diagnostics: [Diagnostic]

    /// A read document.
    public init(file: String, root: PlistNode?, shape: PlistShape?, diagnostics: [Diagnostic]) {
        (self.file, self.root, self.shape, self.diagnostics) = (file, root, shape, diagnostics)
    }

    /// True when any finding is an error (the tree may then be partial or nil).
    public var hasErrors: Bool { diagnostics.hasErrors }
}
