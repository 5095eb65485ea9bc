import CivilTime

/// One `MDMConfSchedule` window (*Device policies*): weekdays, a wall-clock start and end, and a zone.
public struct ScheduleWindow: Sendable {
    /// Weekdays as 0 = Monday … 6 = Sunday.
    public let days: Set<Int>
    /// Minutes after midnight; `end` may be 1440 (`24:00`).
    public let start: Int
    /// Minutes after midnight at which the window closes (1440 for `24:00`).
    public let end: Int
    /// The zone the times are in.
    public let zone: ZoneInfo

    /// The weekdays' names as schedules write them, Monday first.
    public static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// A window on `days` from `start` to `end` in `zone`.
    public init(days: Set<Int>, start: Int, end: Int, zone: ZoneInfo) {
        (self.days, self.start, self.end, self.zone) = (days, start, end, zone)
    }

    /// `HH:MM`, 00:00–23:59, or 24:00 when `allowingEndOfDay`; minutes after midnight.
    static func minutes(_ text: String, allowingEndOfDay: Bool) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":"),
            [0, 1, 3, 4].allSatisfy({ bytes[$0] >= 0x30 && bytes[$0] <= 0x39 })
        else { return nil }
        let hours = Int(bytes[0] - 0x30) * 10 + Int(bytes[1] - 0x30)
        let minutes = Int(bytes[3] - 0x30) * 10 + Int(bytes[4] - 0x30)
        if allowingEndOfDay && hours == 24 && minutes == 0 { return 1440 }
        guard hours < 24, minutes < 60 else { return nil }
        return hours * 60 + minutes
    }

    /// True when the window covers `instant` by wall-clock time in its zone (end exclusive; an overnight
    /// window belongs to the day it starts).
    public func covers(_ instant: Instant) -> Bool {
        let local = instant.seconds + Int64(zone.offset(at: instant.seconds))
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let minute = Int((local - days * 86_400) / 60)
        // 1970-01-01 was a Thursday (3 with Monday = 0).
        let weekday = Int(((days % 7) + 7 + 3) % 7)
        if start < end { return self.days.contains(weekday) && minute >= start && minute < end }
        if self.days.contains(weekday) && minute >= start { return true }
        return self.days.contains((weekday + 6) % 7) && minute < end
    }
}
