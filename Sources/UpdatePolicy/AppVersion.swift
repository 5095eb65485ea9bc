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
        let trimmed = text.trimmingASCIIWhitespace()
        var rest = trimmed
        // Searched byte by byte: `+`, `-` and `v` are ASCII, and Character-wise search cost most of a parse.
        if let first = rest.utf8.first, first == UInt8(ascii: "v") || first == UInt8(ascii: "V") {
            rest = rest[rest.utf8.index(after: rest.startIndex)...]
        }
        if let plus = rest.utf8.firstIndex(of: UInt8(ascii: "+")) {
            guard Self.identifiers(rest[rest.utf8.index(after: plus)...]) != nil else { return nil }
            rest = rest[..<plus]
        }
        var preRelease: [Identifier] = []
        if let dash = rest.utf8.firstIndex(of: UInt8(ascii: "-")) {
            guard let identifiers = Self.identifiers(rest[rest.utf8.index(after: dash)...]) else { return nil }
            for identifier in identifiers {
                if identifier.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                    guard identifier.count == 1 || identifier.first != "0" else { return nil }
                    preRelease.append(.numeric(String(identifier)))
                } else {
                    preRelease.append(.alphanumeric(String(identifier)))
                }
            }
            rest = rest[..<dash]
        }
        guard let core = VersionCore(rest) else { return nil }
        self.core = core
        self.preRelease = preRelease
        self.text = String(trimmed)
    }

    /// Dot-separated, non-empty identifiers of `[0-9A-Za-z-]`.
    private static func identifiers(_ text: Substring) -> [Substring]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        for part in parts {
            guard !part.isEmpty,
                part.utf8.allSatisfy({
                    ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D
                })
            else { return nil }
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
        let trimmed = text.trimmingASCIIWhitespace()
        var coreText = trimmed
        var supplemental: UInt8 = 0
        if trimmed.utf8.last == UInt8(ascii: ")") {
            let bytes = Array(trimmed.utf8)
            guard bytes.count >= 4, bytes[bytes.count - 3] == 0x28 else { return nil }
            let letter = bytes[bytes.count - 2] | 0x20
            guard letter >= 0x61, letter <= 0x7A else { return nil }
            supplemental = letter - 0x60
            var end = bytes.count - 3
            if end > 0, bytes[end - 1] == 0x20 { end -= 1 }
            coreText = Substring(String(decoding: bytes[0..<end], as: UTF8.self))
        }
        guard let core = VersionCore(coreText) else { return nil }
        self.core = core
        self.supplemental = supplemental
        self.text = String(trimmed)
    }

    public var description: String { text }

    public static func == (lhs: OSVersion, rhs: OSVersion) -> Bool { OSKey(lhs) == OSKey(rhs) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(core)
        hasher.combine(supplemental)
    }

    public static func < (lhs: OSVersion, rhs: OSVersion) -> Bool { OSKey(lhs) < OSKey(rhs) }
}
