/// Compiler-style text: `file:line:column: severity: message [CODE name]`, the source line with a caret
/// under the column, then the key path, hint and notes.
public struct TextRenderer: Sendable {
    /// Colour and the sources to quote from.
    public var options: RenderOptions

    /// A renderer with `options`.
    public init(options: RenderOptions = RenderOptions()) { self.options = options }

    /// Every finding of every file, in order (the summary line is the command's to write).
    public func render(_ report: DiagnosticReport) -> String {
        var out = ""
        for file in report.files {
            for diagnostic in file.diagnostics { render(diagnostic, into: &out) }
        }
        return out
    }

    /// One finding with its quoted line, key path, hint and notes.
    public func render(_ diagnostic: Diagnostic) -> String {
        var out = ""
        render(diagnostic, into: &out)
        return out
    }

    private func render(_ diagnostic: Diagnostic, into out: inout String) {
        out.append(paint(Self.locationPrefix(diagnostic.location), .bold))
        out.append(paint(diagnostic.severity.rawValue + ":", severityStyle(diagnostic.severity)))
        out.append(" ")
        out.append(paint(diagnostic.message, .bold))
        out.append(" ")
        out.append(paint("[\(diagnostic.code)]", .dim))
        out.append("\n")
        if let location = diagnostic.location, !diagnostic.sensitive { excerpt(at: location, into: &out) }
        if let keyPath = diagnostic.keyPath { out.append("  key path: \(keyPath)\n") }
        if let hint = diagnostic.hint { out.append("  " + paint("hint:", .cyan) + " \(hint)\n") }
        for note in diagnostic.notes {
            out.append(paint(Self.locationPrefix(note.location), .bold))
            out.append(paint("note:", .cyan))
            out.append(" \(note.message)\n")
            if let location = note.location { excerpt(at: location, into: &out) }
        }
    }

    /// `file:line:column: `, `file:@offset: ` for binary inputs, `file: ` or nothing.
    static func locationPrefix(_ location: SourceLocation?) -> String {
        guard let location else { return "" }
        let position = location.position
        if let line = position.line {
            return "\(location.file):\(line):\(position.column ?? 1): "
        }
        if let offset = position.offset { return "\(location.file):@\(offset): " }
        return "\(location.file): "
    }

    /// Quoted lines are cut to about this many characters around the column (minified plists are one line).
    static let excerptWidth = 100

    private func excerpt(at location: SourceLocation, into out: inout String) {
        guard let line = location.position.line, let source = options.sources[location.file],
            let text = source.line(line)
        else { return }
        let (shown, caretColumn) = Self.window(of: text, column: max(1, location.position.column ?? 1))
        let gutter = String(line)
        let pad = String(repeating: " ", count: gutter.count)
        out.append(" \(gutter) | \(shown)\n")
        // Keep tabs so the caret lines up with the quoted line.
        var marker = ""
        for character in shown.prefix(caretColumn - 1) { marker.append(character == "\t" ? "\t" : " ") }
        out.append(" \(pad) | \(marker)\(paint("^", .green))\n")
    }

    /// The part of `text` to quote and the 1-based character column of the caret in it. `column` counts
    /// bytes; long lines are cut around it and marked with `…`.
    static func window(of text: String, column: Int) -> (String, Int) {
        // A long line (a minified 60 MB plist is one line) is first cut to a few kilobytes around the column,
        // on scalar boundaries, so that quoting costs the same whatever the line's length.
        let reach = excerptWidth * 16
        let utf8 = text.utf8
        if utf8.count > reach * 2 {
            let bytes = Array(utf8)  // contiguous once; the slice below is what is decoded
            func boundary(_ offset: Int) -> Int {
                var offset = min(max(0, offset), bytes.count)
                while offset < bytes.count && bytes[offset] & 0xC0 == 0x80 { offset += 1 }
                return offset
            }
            let lower = boundary(column - 1 - reach)
            let upper = boundary(column - 1 + reach)
            let cut = String(decoding: bytes[lower..<upper], as: UTF8.self)
            let (shown, caret) = window(of: cut, column: column - lower)
            let prefix = lower > 0 && !shown.hasPrefix("…") ? "…" : ""
            let suffix = upper < bytes.count && !shown.hasSuffix("…") ? "…" : ""
            return (prefix + shown + suffix, caret + prefix.count)
        }
        var characters: [Character] = []
        var caret = 0
        var bytes = 0
        for character in text {
            if caret == 0 && bytes >= column - 1 { caret = characters.count + 1 }
            characters.append(character)
            bytes += character.utf8.count
        }
        if caret == 0 { caret = characters.count + 1 }
        guard characters.count > excerptWidth else { return (text, caret) }
        let start = max(0, min(caret - 1 - excerptWidth * 2 / 3, characters.count - excerptWidth))
        let end = min(characters.count, start + excerptWidth)
        let prefix = start > 0 ? "…" : ""
        let suffix = end < characters.count ? "…" : ""
        return (prefix + String(characters[start..<end]) + suffix, caret - start + prefix.count)
    }

    private enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "1;31"
        case yellow = "1;33"
        case cyan = "1;36"
        case green = "1;32"
    }

    private func severityStyle(_ severity: Severity) -> Style {
        switch severity {
        case .error: .red
        case .warning: .yellow
        case .info: .cyan
        }
    }

    private func paint(_ text: String, _ style: Style) -> String {
        guard options.color, !text.isEmpty else { return text }
        return "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m"
    }
}
