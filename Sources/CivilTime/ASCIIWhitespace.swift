extension StringProtocol {
    /// Without leading and trailing ASCII whitespace (space, tab, CR, LF, FF, VT), found byte by byte: each is one
    /// byte and one scalar in UTF-8, so the cuts fall on scalar boundaries.
    public func trimmingASCIIWhitespace() -> Substring {
        let text = Substring(self)
        let utf8 = text.utf8
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }
        // Most texts have nothing to trim: two bytes looked at, no search.
        if let head = utf8.first, let tail = utf8.last, !isSpace(head), !isSpace(tail) { return text }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return text[first...last]
    }
}
