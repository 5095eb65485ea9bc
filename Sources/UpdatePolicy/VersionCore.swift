/// The numeric part shared by app versions, builds and OS versions: 1 to 4 dot-separated ASCII-digit
/// components, leading zeros allowed (ignored), each at most 2^63 − 1, compared after padding to 4.
struct VersionCore: Hashable, Comparable, Sendable {
    let components: [UInt64]

    /// Parses `text` (already trimmed, no sign or suffix); nil when it is not a valid core.
    init?(_ text: Substring) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var components: [UInt64] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            var value: UInt64 = 0
            for byte in part.utf8 {
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times.addingReportingOverflow(UInt64(byte - 0x30))
                guard !o1, !o2, sum <= UInt64(Int64.max) else { return nil }
                value = sum
            }
            components.append(value)
        }
        while components.count < 4 { components.append(0) }
        self.components = components
    }

    static func < (lhs: VersionCore, rhs: VersionCore) -> Bool {
        lhs.components.lexicographicallyPrecedes(rhs.components)
    }
}
