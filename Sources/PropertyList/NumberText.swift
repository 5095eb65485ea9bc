/// The integer grammar of XML plists: optional ASCII whitespace around an optional sign and decimal
/// digits, or `0x`/`0X` and hexadecimal digits (as CoreFoundation and Python's plistlib accept).
enum IntegerText {
    enum Result: Equatable {
        case value(Int64)
        case overflow
        case invalid
    }

    static func parse(_ text: String) -> Result {
        var bytes = Substring(text).utf8[...]
        while let first = bytes.first, XMLPlistBuilder.isXMLSpace(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, XMLPlistBuilder.isXMLSpace(last) { bytes = bytes.dropLast() }
        guard !bytes.isEmpty else { return .invalid }
        if bytes.count > 2, bytes.first == 0x30, bytes[bytes.index(after: bytes.startIndex)] | 0x20 == 0x78 {
            var value: UInt64 = 0
            for byte in bytes.dropFirst(2) {
                let digit: UInt64
                switch byte {
                case 0x30...0x39: digit = UInt64(byte - 0x30)
                case 0x61...0x66: digit = UInt64(byte - 0x61 + 10)
                case 0x41...0x46: digit = UInt64(byte - 0x41 + 10)
                default: return .invalid
                }
                if value > (UInt64(Int64.max) - digit) / 16 { return overflowUnlessInvalid(bytes) }
                value = value * 16 + digit
            }
            return .value(Int64(value))
        }
        var negative = false
        if bytes.first == 0x2D || bytes.first == 0x2B {
            negative = bytes.first == 0x2D
            bytes = bytes.dropFirst()
        }
        guard !bytes.isEmpty else { return .invalid }
        // Accumulate as a negative number so that Int64.min fits.
        var value: Int64 = 0
        for byte in bytes {
            guard (0x30...0x39).contains(byte) else { return .invalid }
            let digit = Int64(byte - 0x30)
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.subtractingReportingOverflow(digit)
            if o1 || o2 { return overflowUnlessInvalid(bytes) }
            value = next
        }
        if negative { return .value(value) }
        guard value != Int64.min else { return .overflow }
        return .value(-value)
    }

    /// A number too large is an overflow only when the rest of it is made of digits too.
    private static func overflowUnlessInvalid(_ bytes: Substring.UTF8View.SubSequence) -> Result {
        let hex = bytes.count > 2 && bytes.first == 0x30 && bytes[bytes.index(after: bytes.startIndex)] | 0x20 == 0x78
        let digits = hex ? bytes.dropFirst(2) : bytes
        let ok = digits.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (hex && ((0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)))
        }
        return ok ? .overflow : .invalid
    }
}

/// The real grammar of XML plists: a decimal number with optional fraction and exponent, or `nan`,
/// `inf`, `infinity` with an optional sign (case-insensitive), with optional ASCII whitespace around it.
enum RealText {
    static func parse(_ text: String) -> Double? {
        let trimmed = text.trimmingXMLSpace()
        switch trimmed.lowercased() {
        case "nan", "+nan", "-nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: break
        }
        guard isDecimal(trimmed.utf8) else { return nil }
        return Double(trimmed)
    }

    /// `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`
    private static func isDecimal(_ bytes: String.UTF8View) -> Bool {
        var index = bytes.startIndex
        func isDigit(_ i: String.UTF8View.Index) -> Bool { i < bytes.endIndex && (0x30...0x39).contains(bytes[i]) }
        if index < bytes.endIndex, bytes[index] == 0x2B || bytes[index] == 0x2D { index = bytes.index(after: index) }
        var digits = 0
        while isDigit(index) {
            digits += 1
            index = bytes.index(after: index)
        }
        if index < bytes.endIndex, bytes[index] == 0x2E {
            index = bytes.index(after: index)
            while isDigit(index) {
                digits += 1
                index = bytes.index(after: index)
            }
        }
        guard digits > 0 else { return false }
        if index < bytes.endIndex, bytes[index] | 0x20 == 0x65 {
            index = bytes.index(after: index)
            if index < bytes.endIndex, bytes[index] == 0x2B || bytes[index] == 0x2D {
                index = bytes.index(after: index)
            }
            guard isDigit(index) else { return false }
            while isDigit(index) { index = bytes.index(after: index) }
        }
        return index == bytes.endIndex
    }
}
