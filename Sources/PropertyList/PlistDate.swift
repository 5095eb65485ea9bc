import CivilTime

/// A plist date: an instant in UTC, in whole seconds.
///
/// XML plists write whole seconds (`2024-05-01T08:30:00Z`); binary plists store a Double of seconds
/// since 2001-01-01T00:00:00Z, which may have a fraction. The readers hold whole seconds only (the binary reader
/// drops a fraction, as Apple's XML writer does), so a date read from any format is written in every format and
/// read back equal.
public struct PlistDate: Sendable, Hashable, Comparable {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var secondsSince1970: Double

    /// The date `secondsSince1970` seconds after 1970-01-01T00:00:00Z.
    public init(secondsSince1970: Double) { self.secondsSince1970 = secondsSince1970 }

    /// Seconds between 1970-01-01 and Apple's reference date 2001-01-01, both UTC.
    public static let referenceDateOffset: Double = 978_307_200

    /// The date `secondsSinceReferenceDate` seconds after 2001-01-01T00:00:00Z, as binary plists store it.
    public init(secondsSinceReferenceDate: Double) {
        self.secondsSince1970 = secondsSinceReferenceDate + Self.referenceDateOffset
    }

    /// Seconds after 2001-01-01T00:00:00Z.
    public var secondsSinceReferenceDate: Double { secondsSince1970 - Self.referenceDateOffset }

    /// The first instant a plist date can hold, 0001-01-01T00:00:00Z, in seconds since 1970.
    public static let earliest: Double = -62_135_596_800
    /// The first instant past the last a plist date can hold: 10000-01-01T00:00:00Z. Every date from `earliest`
    /// up to here can be written as XML (`YYYY-MM-DDTHH:MM:SSZ`, four-digit years), JSON and binary, and read back;
    /// readers refuse the rest (NaN, infinities, years before 1 or after 9999) rather than carry a value no
    /// writer can express.
    public static let pastLatest: Double = 253_402_300_800

    /// True when `seconds` since 1970 lies in the range above.
    public static func holds(secondsSince1970 seconds: Double) -> Bool {
        seconds.isFinite && seconds >= earliest && seconds < pastLatest
    }

    public static func < (lhs: PlistDate, rhs: PlistDate) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    /// Parses exactly `YYYY-MM-DDTHH:MM:SSZ` with valid calendar fields; nil otherwise.
    public init?(iso8601 text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A,
            bytes[16] == 0x3A, bytes[19] == 0x5A
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 0x30
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            year >= 1, (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = CivilCalendar.daysFromCivil(year: year, month: month, day: day)
        self.secondsSince1970 = Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, the fraction of a second dropped (as Apple's writer does). The readers only make
    /// dates in the range `holds` names; a value built outside it in code is written as the nearest end of the
    /// range instead of trapping.
    public var iso8601: String {
        let held =
            secondsSince1970.isNaN ? Self.earliest : min(max(secondsSince1970, Self.earliest), Self.pastLatest - 1)
        let whole = Int64(held.rounded(.down))
        var days = whole / 86_400
        var seconds = whole % 86_400
        if seconds < 0 {
            seconds += 86_400
            days -= 1
        }
        let (year, month, day) = CivilCalendar.civil(fromDays: Int(days))
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(abs(value))
            let sign = value < 0 ? "-" : ""
            return sign + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let second = Int(seconds)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(second / 3600, 2)):"
            + "\(pad(second / 60 % 60, 2)):\(pad(second % 60, 2))Z"
    }
}
