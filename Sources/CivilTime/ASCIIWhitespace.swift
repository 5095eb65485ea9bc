extension StringProtocol {
    /// Without leading and trailing ASCII whitespace (space, tab, CR, LF, FF, VT), found byte by byte: each is one
    /// byte and one scalar in UTF-8, so the cuts fall on scalar boundaries.
    public func trimmingASCIIWhitespace() -> Substring {
        var text = Substring(self)
        // Looked for in the contiguous bytes: `first` and `last` of a `UTF8View` go through its general indices, at
        // several times the cost.
        let cut: (start: Int, end: Int)? = text.withUTF8 { bytes in
            var (start, end) = (0, bytes.count)
            while start < end, bytes[start].isASCIIWhitespace { start += 1 }
            while end > start, bytes[end - 1].isASCIIWhitespace { end -= 1 }
            return start == 0 && end == bytes.count ? nil : (start, end)
        }
        guard let cut else { return text }
        let utf8 = text.utf8
        return text[utf8.index(utf8.startIndex, offsetBy: cut.start)..<utf8.index(utf8.startIndex, offsetBy: cut.end)]
    }
}

extension String {
    /// True when the text begins or ends with ASCII whitespace (it is not its own `trimmingASCIIWhitespace()`):
    /// two bytes looked at.
    var hasASCIIWhitespaceAtEitherEnd: Bool {
        var text = self
        return text.withUTF8 { bytes in
            guard let first = bytes.first, let last = bytes.last else { return false }
            return first.isASCIIWhitespace || last.isASCIIWhitespace
        }
    }

    /// `trimmingASCIIWhitespace()` as a string: itself when there is nothing to trim, without a copy.
    public var trimmedOfASCIIWhitespace: String {
        hasASCIIWhitespaceAtEitherEnd ? String(trimmingASCIIWhitespace()) : self
    }
}

extension UInt8 {
    /// Space, tab, CR, LF, FF or VT.
    @inline(__always)
    public var isASCIIWhitespace: Bool { self == 0x20 || (self >= 0x09 && self <= 0x0D) }
}
