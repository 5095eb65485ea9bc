/// The POSIX TZ rule of a TZif footer (`EST5EDT,M3.2.0,M11.1.0`): standard and daylight offsets and the
/// yearly dates daylight time starts and ends.
struct PosixRule: Sendable {
    let standardOffset: Int32
    let daylight: (offset: Int32, start: DateRule, end: DateRule)?

    enum DateRule: Sendable {
        /// `Mm.w.d/time`: day d (0 = Sunday) of week w (5 = last) of month m.
        case monthWeekDay(month: Int, week: Int, weekday: Int, time: Int32)
        /// `Jn/time`: day n (1…365), February 29 never counted.
        case julian(day: Int, time: Int32)
        /// `n/time`: day n (0…365), February 29 counted.
        case zeroBased(day: Int, time: Int32)
    }

    init?(_ text: String) {
        var scanner = Scanner(Array(text.utf8))
        guard scanner.name(), let std = scanner.offset() else { return nil }
        standardOffset = -std
        if scanner.atEnd {
            daylight = nil
            return
        }
        guard scanner.name() else { return nil }
        var dst = standardOffset + 3_600
        if let explicit = scanner.offset() { dst = -explicit }
        guard scanner.take(0x2C), let start = scanner.dateRule(), scanner.take(0x2C), let end = scanner.dateRule(),
            scanner.atEnd
        else { return nil }
        daylight = (dst, start, end)
    }

    func offset(at instant: Int64) -> Int32 {
        guard let daylight else { return standardOffset }
        let year = CivilCalendar.year(ofSeconds: instant + Int64(standardOffset))
        for (transition, _, after) in transitions(inYear: year).reversed() where instant >= transition { return after }
        // Before this year's first transition: the state the previous year ended in.
        return transitions(inYear: year - 1).last?.2 ?? standardOffset
    }

    /// The transitions of the years around `wall`.
    func transitions(near wall: Int64) -> [(Int64, Int32, Int32)] {
        let year = CivilCalendar.year(ofSeconds: wall)
        return (year - 1...year + 1).flatMap { transitions(inYear: $0) }
    }

    /// This year's transitions as (instant, offset before, offset after), in order.
    private func transitions(inYear year: Int) -> [(Int64, Int32, Int32)] {
        guard let daylight else { return [] }
        // Start is given in standard time, end in daylight time.
        let start = day(daylight.start, year) - Int64(standardOffset)
        let end = day(daylight.end, year) - Int64(daylight.offset)
        let pairs = [(start, standardOffset, daylight.offset), (end, daylight.offset, standardOffset)]
        return pairs.sorted { $0.0 < $1.0 }
    }

    /// Local seconds since 1970 of a rule's date and time in `year`.
    private func day(_ rule: DateRule, _ year: Int) -> Int64 {
        switch rule {
        case .julian(let day, let time):
            var days = CivilCalendar.daysFromCivil(year: year, month: 1, day: 1) + day - 1
            if CivilCalendar.isLeap(year) && day >= 60 { days += 1 }
            return Int64(days) * 86_400 + Int64(time)
        case .zeroBased(let day, let time):
            return Int64(CivilCalendar.daysFromCivil(year: year, month: 1, day: 1) + day) * 86_400 + Int64(time)
        case .monthWeekDay(let month, let week, let weekday, let time):
            let first = CivilCalendar.daysFromCivil(year: year, month: month, day: 1)
            let firstWeekday = (first % 7 + 11) % 7  // 1970-01-01 was a Thursday (4)
            var date = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
            let length = CivilCalendar.daysInMonth(year: year, month: month)
            while date > length { date -= 7 }
            return Int64(first + date - 1) * 86_400 + Int64(time)
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A zone abbreviation: letters, or anything in `<…>`.
        mutating func name() -> Bool {
            if take(0x3C) {
                while index < bytes.count, bytes[index] != 0x3E { index += 1 }
                return take(0x3E)
            }
            let start = index
            while index < bytes.count, bytes[index] | 0x20 >= 0x61, bytes[index] | 0x20 <= 0x7A { index += 1 }
            return index - start >= 3
        }

        mutating func number() -> Int? {
            let start = index
            var value = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            return index > start ? value : nil
        }

        /// `[+-]hh[:mm[:ss]]` in seconds.
        mutating func offset() -> Int32? {
            var sign: Int32 = 1
            if take(0x2D) { sign = -1 } else { _ = take(0x2B) }
            guard let hours = number() else { return nil }
            var seconds = hours * 3_600
            if take(0x3A), let minutes = number() {
                seconds += minutes * 60
                if take(0x3A), let secs = number() { seconds += secs }
            }
            return sign * Int32(seconds)
        }

        mutating func dateRule() -> DateRule? {
            var rule: DateRule
            if take(0x4D) {
                guard let month = number(), take(0x2E), let week = number(), take(0x2E), let weekday = number(),
                    (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday)
                else { return nil }
                rule = .monthWeekDay(month: month, week: week, weekday: weekday, time: 7_200)
            } else if take(0x4A) {
                guard let day = number(), (1...365).contains(day) else { return nil }
                rule = .julian(day: day, time: 7_200)
            } else {
                guard let day = number(), (0...365).contains(day) else { return nil }
                rule = .zeroBased(day: day, time: 7_200)
            }
            if take(0x2F) {
                guard let time = offset() else { return nil }
                switch rule {
                case .monthWeekDay(let m, let w, let d, _):
                    rule = .monthWeekDay(month: m, week: w, weekday: d, time: time)
                case .julian(let day, _): rule = .julian(day: day, time: time)
                case .zeroBased(let day, _): rule = .zeroBased(day: day, time: time)
                }
            }
            return rule
        }
    }
}
