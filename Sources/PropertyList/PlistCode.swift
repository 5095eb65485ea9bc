import MDMDiagnostics

/// The plist-layer codes, `MC1xxx`. Never renumber one: scripts and suppressions rely on them.
public enum PlistCode {
    /// The input file is missing or cannot be read.
    public static let unreadableFile = DiagnosticCode(
        "MC1000", "unreadable-file", summary: "The input file is missing or cannot be read.")
    /// The input is not well-formed XML.
    public static let notWellFormed = DiagnosticCode(
        "MC1001", "not-well-formed", summary: "The input is not well-formed XML.")
    /// The input is not UTF-8 text.
    public static let invalidEncoding = DiagnosticCode(
        "MC1002", "invalid-encoding", summary: "The input is not UTF-8 text.")
    /// The document declares entities; they are refused to stop entity expansion and external reads.
    public static let entityDeclaration = DiagnosticCode(
        "MC1003", "entity-declaration",
        summary: "The document declares entities; they are refused to stop entity expansion and external reads.")
    /// The document refers to an entity that XML does not predefine.
    public static let undeclaredEntity = DiagnosticCode(
        "MC1004", "undeclared-entity", summary: "The document refers to an entity that XML does not predefine.")
    /// Elements are nested deeper than the reader allows.
    public static let nestingTooDeep = DiagnosticCode(
        "MC1005", "nesting-too-deep", summary: "Elements are nested deeper than the reader allows.")
    /// The input is larger than the reader allows.
    public static let fileTooLarge = DiagnosticCode(
        "MC1006", "file-too-large", summary: "The input is larger than the reader allows.")
    /// The document has more elements than the reader allows.
    public static let tooManyNodes = DiagnosticCode(
        "MC1007", "too-many-nodes", summary: "The document has more elements than the reader allows.")
    /// One text node is larger than the reader allows.
    public static let textTooLarge = DiagnosticCode(
        "MC1008", "text-too-large", summary: "One text node is larger than the reader allows.")
    /// An element that is not part of the plist format.
    public static let unknownElement = DiagnosticCode(
        "MC1010", "unknown-element", summary: "An element that is not part of the plist format.")
    /// A <key> in a <dict> is not followed by a value.
    public static let keyWithoutValue = DiagnosticCode(
        "MC1011", "key-without-value", summary: "A <key> in a <dict> is not followed by a value.")
    /// A value in a <dict> has no <key> before it.
    public static let valueWithoutKey = DiagnosticCode(
        "MC1012", "value-without-key", summary: "A value in a <dict> has no <key> before it.")
    /// A key appears twice in one <dict>; readers disagree which value wins.
    public static let duplicateKey = DiagnosticCode(
        "MC1013", "duplicate-key", summary: "A key appears twice in one <dict>; readers disagree which value wins.")
    /// A <key> starts or ends with whitespace or a line break.
    public static let keyWhitespace = DiagnosticCode(
        "MC1014", "key-whitespace", summary: "A <key> starts or ends with whitespace or a line break.")
    /// An <integer> is not a decimal or 0x-hexadecimal integer.
    public static let invalidInteger = DiagnosticCode(
        "MC1015", "invalid-integer", summary: "An <integer> is not a decimal or 0x-hexadecimal integer.")
    /// An <integer> does not fit in 64 signed bits.
    public static let integerOverflow = DiagnosticCode(
        "MC1016", "integer-overflow", summary: "An <integer> does not fit in 64 signed bits.")
    /// A <real> is not a decimal number, nan, inf or -inf.
    public static let invalidReal = DiagnosticCode(
        "MC1017", "invalid-real", summary: "A <real> is not a decimal number, nan, inf or -inf.")
    /// A <date> is not a valid YYYY-MM-DDTHH:MM:SSZ instant.
    public static let invalidDate = DiagnosticCode(
        "MC1018", "invalid-date", summary: "A <date> is not a valid YYYY-MM-DDTHH:MM:SSZ instant.")
    /// A <data> body is not valid base64.
    public static let invalidData = DiagnosticCode(
        "MC1019", "invalid-data", summary: "A <data> body is not valid base64.")
    /// Text stands where only elements may appear.
    public static let textOutsideElements = DiagnosticCode(
        "MC1020", "text-outside-elements", summary: "Text stands where only elements may appear.")
    /// Typographic quotes in the XML declaration or DOCTYPE, usually from a copy out of a word processor.
    public static let smartQuotes = DiagnosticCode(
        "MC1021", "smart-quotes",
        summary: "Typographic quotes in the XML declaration or DOCTYPE, usually from a copy out of a word processor.")
    /// An element holds content its type does not allow.
    public static let unexpectedContent = DiagnosticCode(
        "MC1022", "unexpected-content", summary: "An element holds content its type does not allow.")
    /// The input has no value.
    public static let emptyDocument = DiagnosticCode(
        "MC1023", "empty-document", summary: "The input has no value.")
    /// A <plist> holds more than one value.
    public static let extraValue = DiagnosticCode(
        "MC1024", "extra-value", summary: "A <plist> holds more than one value.")
    /// The <plist> version attribute is not 1.0.
    public static let unsupportedVersion = DiagnosticCode(
        "MC1025", "unsupported-version", summary: "The <plist> version attribute is not 1.0.")
    /// A binary plist is damaged: a bad trailer, offset, count or reference.
    public static let invalidBinary = DiagnosticCode(
        "MC1030", "invalid-binary", summary: "A binary plist is damaged: a bad trailer, offset, count or reference.")
    /// A binary plist container contains itself.
    public static let binaryCycle = DiagnosticCode(
        "MC1031", "binary-cycle", summary: "A binary plist container contains itself.")
    /// A binary plist object that has no XML plist form (null, UID, set, or an unknown marker).
    public static let unsupportedBinaryObject = DiagnosticCode(
        "MC1032", "unsupported-binary-object",
        summary: "A binary plist object that has no XML plist form (null, UID, set, or an unknown marker).")
    /// A JSON input is not valid JSON or holds a value plists cannot hold.
    public static let invalidJSON = DiagnosticCode(
        "MC1040", "invalid-json", summary: "A JSON input is not valid JSON or holds a value plists cannot hold.")
    /// A string holds a control character that an XML plist cannot carry.
    public static let unrepresentableString = DiagnosticCode(
        "MC1041", "unrepresentable-string",
        summary: "A string holds a control character that an XML plist cannot carry.")

    /// Every code of this layer, for documentation and tests.
    public static let all: [DiagnosticCode] = [
        unreadableFile, notWellFormed, invalidEncoding, entityDeclaration, undeclaredEntity, nestingTooDeep,
        fileTooLarge, tooManyNodes, textTooLarge, unknownElement, keyWithoutValue, valueWithoutKey, duplicateKey,
        keyWhitespace, invalidInteger, integerOverflow, invalidReal, invalidDate, invalidData, textOutsideElements,
        smartQuotes, unexpectedContent, emptyDocument, extraValue, unsupportedVersion, invalidBinary, binaryCycle,
        unsupportedBinaryObject, invalidJSON, unrepresentableString,
    ]
}

extension PlistCode {
    /// The finding for an input of `size` bytes over the reader's `limit`.
    public static func fileTooLarge(size: Int, limit: Int, file: String) -> Diagnostic {
        Diagnostic(
            fileTooLarge, severity: .error, message: "input is \(size) bytes, more than the limit of \(limit)",
            location: SourceLocation(file: file, position: SourcePosition(offset: 0)),
            hint: "raise the limit with --max-size if the file is trusted")
    }
}

/// Quotes user text in a message, cut to 40 characters so that no large value is echoed.
func quoted(_ text: some StringProtocol) -> String {
    var shown = ""
    for scalar in text.unicodeScalars {
        if shown.unicodeScalars.count >= 40 {
            return "'\(shown)…'"
        }
        switch scalar {
        case "\n": shown.append("\\n")
        case "\r": shown.append("\\r")
        case "\t": shown.append("\\t")
        default: shown.unicodeScalars.append(scalar)
        }
    }
    return "'\(shown)'"
}
