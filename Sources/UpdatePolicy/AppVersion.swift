import CivilTime

/// An app's marketing version (*Update policies*): `v1.2.3-beta.1+77`.
///
/// Equal cores are equal after zero padding (`1.2` = `1.2.0` = `v1.02`); a version without pre-release is
/// greater than one with; pre-releases compare identifier by identifier; build metadata never counts.
public struct AppVersion: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// One pre-release identifier: all digits (compared numerically) or alphanumeric (ASCII byte order).
    enum Identifier: Hashable, Comparable, Sendable {
        case numeric(String)
        case alphanumeric(String)

        static func < (lhs: Identifier, rhs: Identifier) -> Bool {
            switch (lhs, rhs) {
            case (.numeric(let a), .numeric(let b)): a.count != b.count ? a.count < b.count : a < b
            case (.numeric, .alphanumeric): true
            case (.alphanumeric, .numeric): false
            case (.alphanumeric(let a), .alphanumeric(let b)): Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
            }
        }
    }

    let core: VersionCore
    let preRelease: [Identifier]
    /// The text as written (trimmed), for output.
    public let text: String

    /// Parses an app version; nil when `text` does not follow the grammar.
    public init?(_ text: String) {
        var trimmed = text.trimmedOfASCIIWhitespace
        // Read from the contiguous bytes: `+`, `-` and `v` are ASCII, and searching the string's `UTF8View` (let
        // alone its characters) cost most of a parse, which every update check makes.
        guard let (core, preRelease) = trimmed.withUTF8({ Self.parts($0) }) else { return nil }
        self.core = core
        self.preRelease = preRelease
        self.text = trimmed
    }

    /// The core and pre-release identifiers of a trimmed version's bytes.
    private static func parts(_ bytes: UnsafeBufferPointer<UInt8>) -> (VersionCore, [Identifier])? {
        var (start, end) = (0, bytes.count)
        if end > 0, bytes[0] == UInt8(ascii: "v") || bytes[0] == UInt8(ascii: "V") { start = 1 }
        if let plus = bytes[start..<end].firstIndex(of: UInt8(ascii: "+")) {
            guard identifiers(bytes, plus + 1..<end) != nil else { return nil }
            end = plus
        }
        var preRelease: [Identifier] = []
        if let dash = bytes[start..<end].firstIndex(of: UInt8(ascii: "-")) {
            guard let identifiers = identifiers(bytes, dash + 1..<end) else { return nil }
            for range in identifiers {
                let identifier = bytes[range]
                let text = String(decoding: identifier, as: UTF8.self)
                if identifier.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                    guard identifier.count == 1 || identifier.first != UInt8(ascii: "0") else { return nil }
                    preRelease.append(.numeric(text))
                } else {
                    preRelease.append(.alphanumeric(text))
                }
            }
            end = dash
        }
        guard let core = VersionCore(bytes: UnsafeBufferPointer(rebasing: bytes[start..<end])) else { return nil }
        return (core, preRelease)
    }

    /// Where the dot-separated, non-empty identifiers of `[0-9A-Za-z-]` within `range` are; nil when any is not one.
    private static func identifiers(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [Range<Int>]? {
        var parts: [Range<Int>] = []
        var start = range.lowerBound
        for index in range.lowerBound...range.upperBound where index == range.upperBound || bytes[index] == 0x2E {
            guard index > start,
                bytes[start..<index].allSatisfy({
                    ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D
                })
            else { return nil }
            parts.append(start..<index)
            start = index + 1
        }
        return parts
    }

    public var description: String { text }

    public static func == (lhs: AppVersion, rhs: AppVersion) -> Bool {
        lhs.core == rhs.core && lhs.preRelease == rhs.preRelease
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(core)
        hasher.combine(preRelease)
    }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        if lhs.core != rhs.core { return lhs.core < rhs.core }
        switch (lhs.preRelease.isEmpty, rhs.preRelease.isEmpty) {
        case (true, _): return false
        case (false, true): return true
        case (false, false): return lhs.preRelease.lexicographicallyPrecedes(rhs.preRelease)
        }
    }
}

/// A build number (3.2): 1 to 4 numeric components, no `v`, pre-release or metadata.
public struct BuildNumber: Hashable, Comparable, Sendable, CustomStringConvertible {
    let core: VersionCore
    /// The version as written (trimmed), for output.
    public let text: String

    /// Parses a build number; nil when `text` does not follow the grammar.
    public init?(_ text: String) {
        let trimmed = text.trimmingASCIIWhitespace()
        guard let core = VersionCore(trimmed) else { return nil }
        self.core = core
        self.text = String(trimmed)
    }

    public var description: String { text }
    public static func == (lhs: BuildNumber, rhs: BuildNumber) -> Bool { lhs.core == rhs.core }
    public func hash(into hasher: inout Hasher) { hasher.combine(core) }
    public static func < (lhs: BuildNumber, rhs: BuildNumber) -> Bool { lhs.core < rhs.core }
}

/// An OS version (3.3): a numeric core and an optional supplemental letter, `17.4.1 (a)` or `17.4.1(a)`.
/// No letter < `a` < `b`; `16` = `16.0`.
public struct OSVersion: Hashable, Comparable, Sendable, CustomStringConvertible {
    let core: VersionCore
    /// 0 without a supplemental letter, 1 for `a` … 26 for `z`.
    let supplemental: UInt8
    /// The version as written (trimmed), for output.
    public let text: String

    /// Parses an OS version; nil when `text` does not follow the grammar.
    public init?(_ text: String) {
        var trimmed = text.trimmedOfASCIIWhitespace
        // Read from the contiguous bytes, as an app version is.
        let parts: (VersionCore, UInt8)? = trimmed.withUTF8 { bytes in
            var end = bytes.count
            var supplemental: UInt8 = 0
            if end > 0, bytes[end - 1] == UInt8(ascii: ")") {
                guard end >= 4, bytes[end - 3] == 0x28 else { return nil }
                let letter = bytes[end - 2] | 0x20
                guard letter >= 0x61, letter <= 0x7A else { return nil }
                supplemental = letter - 0x60
                end -= 3
                if end > 0, bytes[end - 1] == 0x20 { end -= 1 }
            }
            return VersionCore(bytes: UnsafeBufferPointer(rebasing: bytes[0..<end])).map { ($0, supplemental) }
        }
        guard let (core, supplemental) = parts else { return nil }
        self.core = core
        self.supplemental = supplemental
        self.text = trimmed
    }

    public var description: String { text }

    public static func == (lhs: OSVersion, rhs: OSVersion) -> Bool { OSKey(lhs) == OSKey(rhs) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(core)
        hasher.combine(supplemental)
    }

    public static func < (lhs: OSVersion, rhs: OSVersion) -> Bool { OSKey(lhs) < OSKey(rhs) }
}
