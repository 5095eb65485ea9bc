#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An instant: seconds since 1970-01-01T00:00:00Z and nanoseconds.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let seconds: Int64
    public let nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32 = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// The system clock, to the second.
    public static var now: Instant { Instant(seconds: Int64(time(nil))) }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    public func adding(seconds delta: Int64) -> Instant { Instant(seconds: seconds + delta, nanoseconds: nanoseconds) }

    /// Seconds from `other` to this instant (fractions dropped toward the earlier instant).
    public func seconds(since other: Instant) -> Int64 {
        seconds - other.seconds - (nanoseconds < other.nanoseconds ? 1 : 0)
    }

    /// RFC 3339 in UTC, `YYYY-MM-DDTHH:MM:SSZ`, with a fraction only when it is not zero.
    public var description: String {
        let days = Int((seconds >= 0 ? seconds : seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        guard (0...9_999).contains(year), nanoseconds == 0 else {
            return Self.described(
                year: year, month: month, day: day, secondOfDay: secondOfDay, nanoseconds: nanoseconds)
        }
        // The common case written digit by digit: reports and answers print hundreds of thousands of these.
        return String(unsafeUninitializedCapacity: 20) { text in
            func put(_ value: Int, _ digits: Int, at offset: Int) {
                var value = value
                for position in stride(from: offset + digits - 1, through: offset, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            put(month, 2, at: 5)
            put(day, 2, at: 8)
            put(secondOfDay / 3_600, 2, at: 11)
            put(secondOfDay / 60 % 60, 2, at: 14)
            put(secondOfDay % 60, 2, at: 17)
            (text[4], text[7], text[10]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"))
            (text[13], text[16], text[19]) = (UInt8(ascii: ":"), UInt8(ascii: ":"), UInt8(ascii: "Z"))
            return 20
        }
    }

    private static func described(year: Int, month: Int, day: Int, secondOfDay: Int, nanoseconds: Int32) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(String(repeating: "0", count: max(0, 4 - String(year).count)))\(year)-\(two(month))-\(two(day))T"
        text += "\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        if nanoseconds > 0 {
            var fraction = String(nanoseconds)
            fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
    }
}

/// A policy date-time (*Update policies*): `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM]`. With `Z` or an
/// offset it is an absolute instant; without, a floating wall time resolved in a zone.
public struct PolicyDateTime: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case absolute(Instant)
        /// Wall-clock seconds since 1970 as if the clock were UTC, and nanoseconds.
        case floating(seconds: Int64, nanoseconds: Int32)
    }

    public let kind: Kind
    public let text: String

    public init(instant: Instant) {
        kind = .absolute(instant)
        text = instant.description
    }

    /// Parses the grammar exactly; date-only values, a space for `T` and every other shape are nil.
    /// Surrounding ASCII white space is ignored unless `exact` is true.
    public init?(_ raw: String, exact: Bool = false) {
        let trimmed = exact ? raw : String(raw.trimmingASCIIWhitespace())
        let bytes = Array(trimmed.utf8)
        guard bytes.count >= 19, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] | 0x20 == 0x74, bytes[13] == 0x3A,
            bytes[16] == 0x3A
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month), hour < 24,
            minute < 60, second < 60
        else { return nil }
        var index = 19
        var nanoseconds: Int32 = 0
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            let digits = index - start
            guard (1...9).contains(digits), let fraction = number(start..<index) else { return nil }
            var scaled = fraction
            for _ in digits..<9 { scaled *= 10 }
            nanoseconds = Int32(scaled)
        }
        let wall =
            Int64(CivilCalendar.daysFromCivil(year: year, month: month, day: day)) * 86_400
            + Int64(hour * 3_600 + minute * 60 + second)
        if index == bytes.count {
            kind = .floating(seconds: wall, nanoseconds: nanoseconds)
        } else if bytes[index] | 0x20 == 0x7A, index + 1 == bytes.count {
            kind = .absolute(Instant(seconds: wall, nanoseconds: nanoseconds))
        } else if bytes[index] == 0x2B || bytes[index] == 0x2D, bytes.count == index + 6, bytes[index + 3] == 0x3A,
            let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6), hours < 24,
            minutes < 60
        {
            let offset = Int64(hours * 3_600 + minutes * 60) * (bytes[index] == 0x2D ? -1 : 1)
            kind = .absolute(Instant(seconds: wall - offset, nanoseconds: nanoseconds))
        } else {
            return nil
        }
        text = trimmed
    }

    public var isFloating: Bool { if case .floating = kind { true } else { false } }

    /// The instant: absolute values as they are, floating ones in `zone` (UTC when nil).
    public func resolved(in zone: ZoneInfo?) -> Instant {
        switch kind {
        case .absolute(let instant): return instant
        case .floating(let wall, let nanoseconds):
            return Instant(seconds: zone?.instant(ofWallTime: wall) ?? wall, nanoseconds: nanoseconds)
        }
    }

    public var description: String { text }
}
