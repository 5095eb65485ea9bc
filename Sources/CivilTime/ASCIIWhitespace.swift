extension StringProtocol {
    /// Without leading and trailing ASCII whitespace (space, tab, CR, LF, FF, VT).
    public func trimmingASCIIWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { " \t\r\n\u{0B}\u{0C}".contains($0) || $0 == "\r\n" }
        let text = Substring(self)
        guard let start = text.firstIndex(where: { !isSpace($0) }), let end = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return text[start...end]
    }
}
