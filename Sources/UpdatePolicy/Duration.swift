import CivilTime

/// A policy duration (3.6): `7d`, `36h`, `1h30m`, `45s`; `d` is exactly 24 hours; at most 3650 days.
public struct PolicyDuration: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The duration in seconds.
    public let seconds: Int64
    /// The duration as written.
    public let text: String

    /// Parses a duration; nil when `text` does not follow the grammar.
    public init?(_ text: String) {
        let trimmed = text.trimmingASCIIWhitespace()
        let order: [Character] = ["d", "h", "m", "s"]
        let scale: [Int64] = [86_400, 3_600, 60, 1]
        var total: Int64 = 0
        var lastUnit = -1
        var digits = ""
        for character in trimmed {
            if character.isASCII, character.isNumber {
                digits.append(character)
                guard digits.count <= 12 else { return nil }
                continue
            }
            // Units appear at most once each, in the order d, h, m, s, each after its digits.
            guard let unit = order.firstIndex(of: character), unit > lastUnit, let value = Int64(digits) else {
                return nil
            }
            lastUnit = unit
            total += value * scale[unit]
            digits = ""
        }
        guard lastUnit >= 0, digits.isEmpty, total <= 3_650 * 86_400 else { return nil }
        self.seconds = total
        self.text = String(trimmed)
    }

    init(seconds: Int64, text: String) {
        self.seconds = seconds
        self.text = text
    }

    public var description: String { text }
    public static func < (lhs: PolicyDuration, rhs: PolicyDuration) -> Bool { lhs.seconds < rhs.seconds }
}

/// A locale tag (3.7): `en`, `fr_CA`, `zh-Hant-TW`, `es-419`; compared ASCII case-insensitively with `_` = `-`.
public struct LocaleTag: Hashable, Sendable, CustomStringConvertible {
    /// The tag as written.
    public let text: String
    /// Lowercased, `_` replaced by `-`: the form compared.
    public let key: String
    /// This tag's key, then with its last subtag dropped, repeatedly (`zh-hant-tw`, `zh-hant`, `zh`).
    public let fallbackKeys: [String]

    /// Parses a locale tag; nil when `text` is not one.
    public init?(_ text: String) {
        let trimmed = String(text.trimmingASCIIWhitespace())
        let parts = trimmed.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "-" || $0 == "_" })
        guard let first = parts.first, (2...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }),
            parts.dropFirst().allSatisfy({
                (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            })
        else { return nil }
        self.text = trimmed
        let lowered = parts.map { $0.lowercased() }
        self.key = lowered.joined(separator: "-")
        self.fallbackKeys = (1...lowered.count).reversed().map { lowered.prefix($0).joined(separator: "-") }
    }

    public var description: String { text }
    public static func == (lhs: LocaleTag, rhs: LocaleTag) -> Bool { lhs.key == rhs.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

}

/// A device-model glob (3.8): the whole string, ASCII case-insensitively; `*` any run, `?` one character;
/// everything else literal (`iPhone10,*`).
public struct ModelGlob: Hashable, Sendable, CustomStringConvertible {
    /// The glob as written.
    public let text: String
    /// ASCII-lowercased UTF-8: models are compared ASCII case-insensitively, byte by byte.
    let pattern: [UInt8]

    /// A glob of `text`; nil when it is empty.
    public init?(_ text: String) {
        guard !text.isEmpty else { return nil }
        self.text = text
        self.pattern = Array(text.asciiLowercased().utf8)
    }

    public var description: String { text }

    /// True when the whole of `model` matches, ASCII case-insensitively.
    public func matches(_ model: String) -> Bool {
        pattern.withUnsafeBufferPointer { pattern in
            Array(model.asciiLowercased().utf8).withUnsafeBufferPointer { Self.matches(pattern, lowercased: $0) }
        }
    }

    /// Matches a model already ASCII-lowercased to UTF-8 bytes against a pattern's bytes.
    static func matches(_ pattern: UnsafeBufferPointer<UInt8>, lowercased subject: UnsafeBufferPointer<UInt8>) -> Bool {
        // Iterative wildcard match with backtracking to the last star: linear in practice, no recursion.
        var p = 0
        var s = 0
        var star: Int?
        var mark = 0
        while s < subject.count {
            if p < pattern.count, pattern[p] == 0x3F || (pattern[p] != 0x2A && pattern[p] == subject[s]) {
                p += 1
                s += 1
            } else if p < pattern.count, pattern[p] == 0x2A {
                star = p
                mark = s
                p += 1
            } else if let starIndex = star {
                p = starIndex + 1
                mark += 1
                s = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == 0x2A { p += 1 }
        return p == pattern.count
    }
}
