import CLibIDN2

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A normalised URL host (*Device policies*): a lowercase ASCII domain name without a trailing dot, an
/// IPv4 address or an IPv6 address. Patterns and query URLs share this normalisation.
public enum URLHost: Hashable, Sendable, CustomStringConvertible {
    /// A domain name, lowercase ASCII (a non-ASCII name in its `xn--` form), without a trailing dot.
    case domain(String)
    /// An IPv4 address.
    case ipv4(UInt32)
    /// An IPv6 address, as eight 16-bit groups.
    case ipv6([UInt16])

    /// Normalises the host text of a pattern or URL (`[…]` for IPv6); nil when it is not a valid host.
    public init?(_ text: Substring) { self.init(bytes: Array(text.utf8)[...]) }

    init?(bytes text: ArraySlice<UInt8>) {
        if text.first == UInt8(ascii: "[") {
            guard text.last == UInt8(ascii: "]"), text.count >= 2,
                let address = Self.parseIPv6(Substring(decoding: text.dropFirst().dropLast(), as: UTF8.self))
            else { return nil }
            self = .ipv6(address)
            return
        }
        guard var bytes = Self.asciiHost(Array(text)) else { return nil }
        guard
            !bytes.contains(where: {
                $0 < 0x20 || $0 == 0x7F || $0 >= 0x80 || Self.isForbidden($0)
            })
        else { return nil }
        if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        // No empty label: not empty, no leading dot, no two dots in a row (one trailing dot was removed).
        guard let first = bytes.first, first != UInt8(ascii: "."), bytes.last != UInt8(ascii: ".") else { return nil }
        var lastLabelStart = 0
        for index in 1..<bytes.count where bytes[index] == UInt8(ascii: ".") {
            if bytes[index - 1] == UInt8(ascii: ".") { return nil }
            lastLabelStart = index + 1
        }
        if Self.isNumber(bytes[lastLabelStart...]) {
            let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            guard let address = Self.parseIPv4(labels) else { return nil }
            self = .ipv4(address)
            return
        }
        self = .domain(String(decoding: bytes, as: UTF8.self))
    }

    /// True for an address, false for a domain name.
    public var isIP: Bool { if case .domain = self { false } else { true } }

    /// The canonical text: `example.com`, `127.0.0.1`, `[2001:db8::1]`.
    public var description: String {
        switch self {
        case .domain(let name): return name
        case .ipv4(let address):
            return [24, 16, 8, 0].map { String((address >> UInt32($0)) & 0xFF) }.joined(separator: ".")
        case .ipv6(let pieces): return "[" + Self.serializeIPv6(pieces) + "]"
        }
    }

    // MARK: - Steps of 8.3

    /// `# % / : < > ? @ [ \ ] ^ |` and space (C0 controls and DEL are checked apart).
    private static func isForbidden(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x23, 0x25, 0x2F, 0x3A, 0x3C, 0x3E, 0x3F, 0x40, 0x5B, 0x5C, 0x5D, 0x5E, 0x7C: true
        default: false
        }
    }

    /// Steps 1–2: percent-decoded (a `%` without two hex digits stays, and is then forbidden), valid UTF-8,
    /// then ASCII-lowercased when ASCII without `xn--` labels, otherwise UTS-46 through libidn2.
    private static func asciiHost(_ raw: [UInt8]) -> [UInt8]? {
        var bytes = raw
        if raw.contains(UInt8(ascii: "%")) {
            bytes.removeAll(keepingCapacity: true)
            var index = 0
            while index < raw.count {
                if raw[index] == UInt8(ascii: "%"), index + 2 < raw.count, let high = hexValue(raw[index + 1]),
                    let low = hexValue(raw[index + 2])
                {
                    bytes.append(high << 4 | low)
                    index += 3
                } else {
                    bytes.append(raw[index])
                    index += 1
                }
            }
            guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        }
        var ascii = true
        var punycode = false
        var labelStart = true
        for index in bytes.indices {
            let byte = bytes[index]
            if byte >= 0x80 { ascii = false }
            if labelStart, index + 3 < bytes.count, byte | 0x20 == UInt8(ascii: "x"),
                bytes[index + 1] | 0x20 == UInt8(ascii: "n"), bytes[index + 2] == UInt8(ascii: "-"),
                bytes[index + 3] == UInt8(ascii: "-")
            {
                punycode = true
            }
            labelStart = byte == UInt8(ascii: ".")
        }
        if ascii && !punycode {
            for index in bytes.indices where bytes[index] >= 0x41 && bytes[index] <= 0x5A { bytes[index] |= 0x20 }
            return bytes
        }
        if bytes.contains(0) { return nil }
        var output: UnsafeMutablePointer<CChar>? = nil
        let flags = Int32(IDN2_NONTRANSITIONAL.rawValue | IDN2_NFC_INPUT.rawValue)
        let status = String(decoding: bytes, as: UTF8.self).withCString { idn2_to_ascii_8z($0, &output, flags) }
        defer { if let output { idn2_free(output) } }
        guard status == Int32(IDN2_OK.rawValue), let output else { return nil }
        return Array(String(cString: output).utf8)
    }

    /// True when a label is a number in the sense of the WHATWG "ends in a number" check.
    private static func isNumber(_ label: ArraySlice<UInt8>) -> Bool {
        if label.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        guard label.count >= 2, label[label.startIndex] == UInt8(ascii: "0"),
            label[label.startIndex + 1] | 0x20 == UInt8(ascii: "x")
        else { return false }
        return label.dropFirst(2).allSatisfy { hexValue($0) != nil }
    }

    private static func parseIPv4(_ labels: [ArraySlice<UInt8>]) -> UInt32? {
        guard labels.count <= 4 else { return nil }
        var numbers: [UInt64] = []
        for label in labels {
            guard let number = parseIPv4Number(label) else { return nil }
            numbers.append(number)
        }
        for number in numbers.dropLast() where number > 255 { return nil }
        guard let last = numbers.last, last < UInt64(1) << (8 * UInt64(5 - numbers.count)) else { return nil }
        var address = last
        for (index, number) in numbers.dropLast().enumerated() { address += number << (8 * UInt64(3 - index)) }
        return UInt32(address)
    }

    private static func parseIPv4Number(_ label: ArraySlice<UInt8>) -> UInt64? {
        var digits = label
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == UInt8(ascii: "0"), digits[digits.startIndex + 1] | 0x20 == 0x78 {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count >= 2, digits.first == UInt8(ascii: "0") {
            digits = digits.dropFirst()
            radix = 8
        }
        var value: UInt64 = 0
        for byte in digits {
            guard let digit = hexValue(byte).map(UInt64.init), digit < radix else { return nil }
            value = value * radix + digit
            if value > UInt64(UInt32.max) { return nil }
        }
        return value
    }

    /// The WHATWG IPv6 parser: `::` compression and an embedded dotted IPv4 in the last 32 bits.
    static func parseIPv6(_ text: Substring) -> [UInt16]? {
        let input = Array(text.utf8)
        var pieces = [UInt16](repeating: 0, count: 8)
        var pieceIndex = 0
        var compress: Int? = nil
        var pointer = 0
        func at(_ index: Int) -> UInt8? { index < input.count ? input[index] : nil }
        if at(0) == UInt8(ascii: ":") {
            guard at(1) == UInt8(ascii: ":") else { return nil }
            pointer = 2
            pieceIndex = 1
            compress = 1
        }
        while let byte = at(pointer) {
            guard pieceIndex < 8 else { return nil }
            if byte == UInt8(ascii: ":") {
                guard compress == nil else { return nil }
                pointer += 1
                pieceIndex += 1
                compress = pieceIndex
                continue
            }
            var value: UInt16 = 0
            var length = 0
            while length < 4, let next = at(pointer), let digit = hexValue(next) {
                value = value << 4 | UInt16(digit)
                pointer += 1
                length += 1
            }
            if at(pointer) == UInt8(ascii: ".") {
                guard length > 0, pieceIndex <= 6 else { return nil }
                pointer -= length
                guard let embedded = parseEmbeddedIPv4(input[pointer...]) else { return nil }
                pieces[pieceIndex] = UInt16(embedded >> 16)
                pieces[pieceIndex + 1] = UInt16(embedded & 0xFFFF)
                pieceIndex += 2
                pointer = input.count
                break
            } else if at(pointer) == UInt8(ascii: ":") {
                pointer += 1
                guard at(pointer) != nil else { return nil }
            } else if at(pointer) != nil {
                return nil
            }
            pieces[pieceIndex] = value
            pieceIndex += 1
        }
        if let compress {
            var swaps = pieceIndex - compress
            pieceIndex = 7
            while pieceIndex != 0 && swaps > 0 {
                pieces.swapAt(pieceIndex, compress + swaps - 1)
                pieceIndex -= 1
                swaps -= 1
            }
        } else if pieceIndex != 8 {
            return nil
        }
        return pieces
    }

    /// Four decimal parts without leading zeros, each at most 255 (WHATWG's IPv4-in-IPv6 rule).
    private static func parseEmbeddedIPv4(_ text: ArraySlice<UInt8>) -> UInt32? {
        let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var address: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                part.count == 1 || part.first != UInt8(ascii: "0")
            else { return nil }
            let value = part.reduce(UInt32(0)) { $0 * 10 + UInt32($1 - 0x30) }
            guard value <= 255 else { return nil }
            address = address << 8 | value
        }
        return address
    }

    /// Lowercase hex pieces without leading zeros, the first longest run of two or more zero pieces as `::`.
    static func serializeIPv6(_ pieces: [UInt16]) -> String {
        var bestStart = -1
        var bestLength = 1
        var index = 0
        while index < 8 {
            guard pieces[index] == 0 else {
                index += 1
                continue
            }
            let start = index
            while index < 8 && pieces[index] == 0 { index += 1 }
            if index - start > bestLength {
                bestStart = start
                bestLength = index - start
            }
        }
        var out = ""
        var piece = 0
        while piece < 8 {
            if piece == bestStart {
                out += piece == 0 ? "::" : ":"
                piece += bestLength
                continue
            }
            out += String(pieces[piece], radix: 16)
            if piece < 7 { out += ":" }
            piece += 1
        }
        return out
    }
}

func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x37
    case 0x61...0x66: byte - 0x57
    default: nil
    }
}
