/// Where something is in an input file.
///
/// Text inputs (XML, JSON) have a 1-based `line` and `column`; the column counts bytes of UTF-8 from the
/// start of the line, as compilers do. Binary inputs have only a byte `offset`. `offset` is always the
/// 0-based byte offset from the start of the input when known.
public struct SourcePosition: Sendable, Hashable, Codable {
    /// The 1-based line, in a text input.
    public var line: Int?
    /// The 1-based column in UTF-8 bytes, in a text input.
    public var column: Int?
    /// The 0-based byte offset from the start of the input.
    public var offset: Int?

    /// A position with what is known of it.
    public init(line: Int? = nil, column: Int? = nil, offset: Int? = nil) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// A position that is not known (values built in code rather than read from a file).
    public static let unknown = SourcePosition()

    /// A position in a binary input, which has byte offsets but no lines.
    public static func byteOffset(_ offset: Int) -> SourcePosition { SourcePosition(offset: offset) }

    /// True when neither a line nor an offset is known.
    public var isUnknown: Bool { line == nil && offset == nil }
}

/// A position in a named file.
public struct SourceLocation: Sendable, Hashable, Codable {
    /// The file's path as given on the command line (or a name such as `request` for a request body).
    public var file: String
    /// Where in the file.
    public var position: SourcePosition

    /// `position` in `file`.
    public init(file: String, position: SourcePosition = .unknown) {
        self.file = file
        self.position = position
    }

    /// A line and column in `file`.
    public init(file: String, line: Int, column: Int) {
        self.init(file: file, position: SourcePosition(line: line, column: column))
    }
}
