/// The numeric part shared by app versions, builds and OS versions: 1 to 4 dot-separated ASCII-digit
/// components, leading zeros allowed (ignored), each at most 2^63 − 1, compared after padding to 4.
///
/// Four plain fields rather than an array: comparing two cores touches no reference count.
struct VersionCore: Hashable, Comparable, Sendable {
    let major, minor, patch, fourth: UInt64

    /// Parses `text` (already trimmed, no sign or suffix); nil when it is not a valid core.
    init?(_ text: Substring) {
        var text = text
        guard let core = text.withUTF8({ VersionCore(bytes: $0) }) else { return nil }
        self = core
    }

    /// Parses the UTF-8 bytes of a core (already trimmed, no sign or suffix); nil when they are not a valid one.
    init?(bytes text: UnsafeBufferPointer<UInt8>) {
        // One pass over the bytes, no split: versions are parsed on every update check.
        var components: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count = 0
        var value: UInt64 = 0
        var digits = 0
        func finish() -> Bool {
            guard count < 4, digits > 0 else { return false }
            switch count {
            case 0: components.0 = value
            case 1: components.1 = value
            case 2: components.2 = value
            default: components.3 = value
            }
            count += 1
            (value, digits) = (0, 0)
            return true
        }
        for byte in text {
            if byte == 0x2E {
                guard finish() else { return nil }
                continue
            }
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(byte - 0x30))
            guard !o1, !o2, sum <= UInt64(Int64.max) else { return nil }
            value = sum
            digits += 1
        }
        guard finish() else { return nil }
        (major, minor, patch, fourth) = components
    }

    static func < (lhs: VersionCore, rhs: VersionCore) -> Bool {
        (lhs.major, lhs.minor, lhs.patch, lhs.fourth) < (rhs.major, rhs.minor, rhs.patch, rhs.fourth)
    }
}
