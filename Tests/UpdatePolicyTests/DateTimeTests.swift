import CivilTime
import Testing
import UpdatePolicy

#if canImport(Glibc)
    import Glibc
#endif

/// Date-times and IANA zones (*Update policies*), read from the system tz database.
@Suite(.enabled(if: ZoneInfo(named: "America/New_York") != nil, "no tz database on this machine (apt install tzdata)"))
struct DateTimeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let wall: String
        let zone: String
        let instant: String
        var testDescription: String { "\(wall) \(zone)" }
    }

    static let cases: [Case] = [
        // Spring-forward gap: the offset before the transition moves the time forward.
        Case(wall: "2025-03-09T02:30:00", zone: "America/New_York", instant: "2025-03-09T07:30:00Z"),
        // Fall-back overlap: the earlier occurrence.
        Case(wall: "2025-11-02T01:30:00", zone: "America/New_York", instant: "2025-11-02T05:30:00Z"),
        Case(wall: "2025-11-02T00:59:59", zone: "America/New_York", instant: "2025-11-02T04:59:59Z"),
        Case(wall: "2025-11-02T02:00:00", zone: "America/New_York", instant: "2025-11-02T07:00:00Z"),
        Case(wall: "2025-03-09T03:00:00", zone: "America/New_York", instant: "2025-03-09T07:00:00Z"),
        Case(wall: "2025-07-01T09:00:00", zone: "Europe/Berlin", instant: "2025-07-01T07:00:00Z"),
        Case(wall: "2025-01-15T09:00:00", zone: "Europe/Berlin", instant: "2025-01-15T08:00:00Z"),
        Case(wall: "2025-03-30T02:30:00", zone: "Europe/Berlin", instant: "2025-03-30T01:30:00Z"),
        Case(wall: "2025-10-26T02:30:00", zone: "Europe/Berlin", instant: "2025-10-26T00:30:00Z"),
        // Past the table (2037), from the POSIX rule of the footer.
        Case(wall: "2050-03-13T02:30:00", zone: "America/New_York", instant: "2050-03-13T07:30:00Z"),
        Case(wall: "2050-11-06T01:30:00", zone: "America/New_York", instant: "2050-11-06T05:30:00Z"),
        Case(wall: "2050-07-01T12:00:00", zone: "America/New_York", instant: "2050-07-01T16:00:00Z"),
        // Southern hemisphere: daylight time spans the new year.
        Case(wall: "2026-01-10T12:00:00", zone: "Australia/Sydney", instant: "2026-01-10T01:00:00Z"),
        Case(wall: "2045-01-10T12:00:00", zone: "Australia/Sydney", instant: "2045-01-10T01:00:00Z"),
        Case(wall: "2045-06-10T12:00:00", zone: "Australia/Sydney", instant: "2045-06-10T02:00:00Z"),
        Case(wall: "2025-06-01T12:00:00", zone: "Asia/Kolkata", instant: "2025-06-01T06:30:00Z"),
        Case(wall: "2025-06-01T12:00:00", zone: "UTC", instant: "2025-06-01T12:00:00Z"),
    ]

    @Test(arguments: cases)
    func floatingWallTimesResolve(_ testCase: Case) throws {
        let zone = try #require(ZoneInfo(named: testCase.zone))
        let dateTime = try #require(PolicyDateTime(testCase.wall))
        #expect(dateTime.isFloating)
        #expect(dateTime.resolved(in: zone).description == testCase.instant)
    }

    @Test(arguments: [
        ("2025-06-01T15:00:00+02:00", "2025-06-01T13:00:00Z"), ("2025-06-01t13:00:00z", "2025-06-01T13:00:00Z"),
        ("2025-06-01T13:00:00.250Z", "2025-06-01T13:00:00.25Z"), ("2025-06-01T00:30:00-05:30", "2025-06-01T06:00:00Z"),
        ("1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"),
    ])
    func absoluteInstantsIgnoreTheZone(_ text: String, _ instant: String) throws {
        let dateTime = try #require(PolicyDateTime(text))
        #expect(!dateTime.isFloating)
        #expect(dateTime.resolved(in: ZoneInfo(named: "Asia/Tokyo")).description == instant)
    }

    @Test(arguments: [
        "2025-06-01", "2025-06-01 13:00:00", "2025-02-29T00:00:00Z", "2025-06-01T24:00:00", "2025-06-01T23:59:60Z",
        "2025-6-01T13:00:00", "2025-06-01T13:00", "2025-06-01T13:00:00+2:00", "2025-06-01T13:00:00+02", "now", "",
        "2025-06-01T13:00:00.Z", "2025-06-01T13:00:00ZZ", "2025-13-01T00:00:00",
    ])
    func malformedDateTimesAreRejected(_ text: String) {
        #expect(PolicyDateTime(text) == nil, "\(text)")
    }

    @Test(arguments: ["Mars/Olympus_Mons", "../../etc/passwd", "/etc/localtime", "", "Europe/Berlin/x"])
    func unknownZonesAreRejected(_ name: String) {
        #expect(ZoneInfo(named: name) == nil)
    }

    /// Instants print as the C library's `gmtime_r` reads them (the digit-by-digit path and the general one).
    @Test(
        arguments: [
            Int64(0), -1, -86_400, -86_401, 59, 951_782_400, 1_767_225_599, 1_798_761_600, 253_402_300_799,
            -62_135_596_800, 253_402_300_800,
        ] + (0..<200).map { Int64($0) * 1_234_567_891 % 253_402_300_799 })
    func instantsPrintAsUTC(_ seconds: Int64) throws {
        var time = time_t(seconds)
        var parts = tm()
        _ = try #require(gmtime_r(&time, &parts))
        let year = Int(parts.tm_year) + 1900
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let expected =
            (year >= 0 && year < 1000 ? String(repeating: "0", count: 4 - String(year).count) : "")
            + "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
        #expect(Instant(seconds: seconds).description == expected)
        #expect(Instant(seconds: seconds, nanoseconds: 5_000_000).description == expected.dropLast() + ".005Z")
    }
}
