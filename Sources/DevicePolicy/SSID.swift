import MDMDiagnostics

/// A Wi-Fi network name as bytes (*Device policies*): compared byte for byte, never normalised.
public struct SSID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The name's bytes.
    public let bytes: [UInt8]

    /// The UTF-8 bytes of `text`, exactly as written; nil when empty or longer than 32 bytes.
    public init?(text: String) {
        let bytes = Array(text.utf8)
        guard (1...32).contains(bytes.count) else { return nil }
        self.bytes = bytes
    }

    /// Hex digits of either case, even length, no separators, 1–32 bytes; nil otherwise.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0, (2...64).contains(digits.count) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.bytes = bytes
    }

    /// Lowercase hex of the bytes.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
    }

    /// The bytes as text when they are UTF-8, else their hex.
    public var description: String { String(validating: bytes, as: UTF8.self) ?? hex }

    /// Byte order.
    public static func < (lhs: SSID, rhs: SSID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }
}

/// Bundle identifiers (*Device policies*): `[A-Za-z0-9.-]+`, compared ASCII case-insensitively.
public enum BundleID {
    /// True when `text` is a bundle id by that grammar.
    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 == 0x2E || isLabelByte($0) }
    }

    /// A letter, a digit or `-`: what a bundle id's dot-separated labels are made of.
    private static func isLabelByte(_ byte: UInt8) -> Bool {
        (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
    }

    /// An app id as an address or a record names it: valid, at most 255 bytes, dot-separated labels none of them
    /// empty (so `..`, a leading or a trailing dot are refused). Paths of the server and check-ins use this.
    public static func isWellFormed(_ text: String) -> Bool {
        // One pass over the contiguous bytes, no substrings: every request for an app's configuration and every
        // check-in asks (iterating `String.UTF8View` twice cost about 1,200 instructions for a 20-byte id).
        var text = text
        return text.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= 255 else { return false }
            // An empty label is a dot at either end or two in a row.
            var previous = UInt8(ascii: ".")
            for byte in bytes {
                if byte == UInt8(ascii: ".") {
                    if previous == UInt8(ascii: ".") { return false }
                } else if !isLabelByte(byte) {
                    return false
                }
                previous = byte
            }
            return previous != UInt8(ascii: ".")
        }
    }

    /// The comparison key: ASCII lowercase.
    public static func key(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

extension String {
    /// Orders by UTF-8 bytes (the answer's sort order), never by `String <`, which compares canonically.
    static func utf8Less(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8Precedes(rhs) }
}
