#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IANA time zone read from the system's tz database (TZif files under `TZDIR`, default
/// `/usr/share/zoneinfo`): the transition table, and the POSIX rule of its footer for instants after it.
public struct ZoneInfo: Sendable {
    public let name: String
    /// Transition instants (seconds since 1970, UTC), ascending, with the UTC offset from each on.
    let transitions: [Int64]
    let offsetsAfter: [Int32]
    /// The offset before the first transition.
    let initialOffset: Int32
    let rule: PosixRule?

    /// Loads zone `name`; nil when it is not a valid IANA name on this system. A zone file is read and parsed
    /// once per process and folder (requests name the same few zones again and again); a changed tz database is
    /// seen after a restart.
    public init?(named name: String) {
        if name == "UTC" || name == "Etc/UTC" || name == "GMT" {
            self.init(name: name, transitions: [], offsetsAfter: [], initialOffset: 0, rule: nil)
            return
        }
        // Names are letters, digits and `/_+-`; no `..`, no leading slash: never a path outside TZDIR.
        // (Checked byte by byte: the Unicode property lookups this once made were 7 % of a check-in's parse.)
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains(".."),
            name.utf8.allSatisfy({ byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "_"), UInt8(ascii: "+"),
                    UInt8(ascii: "-"):
                    true
                default: false
                }
            })
        else { return nil }
        let folder = getenv("TZDIR").map { String(cString: $0) } ?? "/usr/share/zoneinfo"
        let path = folder + "/" + name
        if let known = ZoneMemo.shared.zone(at: path) {
            self = known
            return
        }
        guard let bytes = Self.readFile(path), let parsed = Self.parse(bytes) else { return nil }
        self.init(name: name, transitions: parsed.0, offsetsAfter: parsed.1, initialOffset: parsed.2, rule: parsed.3)
        ZoneMemo.shared.remember(self, at: path)
    }

    init(name: String, transitions: [Int64], offsetsAfter: [Int32], initialOffset: Int32, rule: PosixRule?) {
        (self.name, self.transitions, self.offsetsAfter) = (name, transitions, offsetsAfter)
        (self.initialOffset, self.rule) = (initialOffset, rule)
    }

    /// The UTC offset in seconds at `instant`.
    public func offset(at instant: Int64) -> Int32 {
        guard let first = transitions.first, let last = transitions.last else {
            return rule?.offset(at: instant) ?? initialOffset
        }
        if instant < first { return initialOffset }
        if instant >= last, let rule { return rule.offset(at: instant) }
        var low = 0
        var high = transitions.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if transitions[mid] <= instant { low = mid } else { high = mid - 1 }
        }
        return offsetsAfter[low]
    }

    /// The instant of the local wall time `wall` (seconds since 1970 as if the wall clock were UTC). Inside a
    /// transition the offset in effect before it is used: a skipped time moves forward by the gap, a repeated
    /// time is its earlier occurrence.
    public func instant(ofWallTime wall: Int64) -> Int64 {
        for (instant, before, after) in transitionsNear(wall) {
            let low = instant + Int64(min(before, after))
            let high = instant + Int64(max(before, after))
            if wall >= low && wall < high { return wall - Int64(before) }
        }
        let guess = wall - Int64(offset(at: wall))
        return wall - Int64(offset(at: guess))
    }

    /// Transitions within two days of `wall`, as (instant, offset before, offset after).
    private func transitionsNear(_ wall: Int64) -> [(Int64, Int32, Int32)] {
        var result: [(Int64, Int32, Int32)] = []
        let window: ClosedRange<Int64> = (wall - 2 * 86_400)...(wall + 2 * 86_400)
        // The first transition at or after the window's start, by binary search; then the few inside it.
        var low = 0
        var high = transitions.count
        while low < high {
            let mid = (low + high) / 2
            if transitions[mid] < window.lowerBound { low = mid + 1 } else { high = mid }
        }
        var index = low
        while index < transitions.count, transitions[index] <= window.upperBound {
            result.append(
                (transitions[index], index == 0 ? initialOffset : offsetsAfter[index - 1], offsetsAfter[index]))
            index += 1
        }
        if let rule, transitions.last.map({ wall >= $0 - 2 * 86_400 }) ?? true {
            result += rule.transitions(near: wall).filter { window.contains($0.0) }
        }
        return result
    }

    // MARK: TZif

    private static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
            if bytes.count > 1 << 20 { return nil }
        }
        return bytes
    }

    /// The version 2+ (64-bit) data block and footer of a TZif file.
    static func parse(_ bytes: [UInt8]) -> ([Int64], [Int32], Int32, PosixRule?)? {
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        func i64(_ at: Int) -> Int64 { (0..<8).reduce(Int64(0)) { $0 << 8 | Int64(bytes[at + $1]) } }
        func counts(_ at: Int) -> [Int]? {
            guard bytes.count >= at + 44, bytes[at..<at + 4].elementsEqual(Array("TZif".utf8)) else { return nil }
            return (0..<6).map { u32(at + 20 + 4 * $0) }
        }
        guard let first = counts(0), bytes[4] >= 0x32 else { return nil }
        let v1Length = 44 + first[3] * 5 + first[4] * 6 + first[5] + first[2] * 8 + first[1] + first[0]
        guard let second = counts(v1Length) else { return nil }
        let (isUT, isStd, leaps, times, types, chars) = (
            second[0], second[1], second[2], second[3], second[4], second[5]
        )
        var at = v1Length + 44
        let dataLength = times * 9 + types * 6 + chars + leaps * 12 + isStd + isUT
        guard bytes.count >= at + dataLength, types > 0 else { return nil }
        let transitions = (0..<times).map { i64(at + 8 * $0) }
        at += times * 8
        let typeIndexes = (0..<times).map { Int(bytes[at + $0]) }
        at += times
        let offsets: [Int32] = (0..<types).map { Int32(truncatingIfNeeded: u32(at + 6 * $0)) }
        at += types * 6 + chars + leaps * 12 + isStd + isUT
        guard typeIndexes.allSatisfy({ $0 < types }) else { return nil }
        var rule: PosixRule?
        if at < bytes.count, bytes[at] == 0x0A, let end = bytes[(at + 1)...].firstIndex(of: 0x0A) {
            rule = PosixRule(String(decoding: bytes[(at + 1)..<end], as: UTF8.self))
        }
        return (transitions, typeIndexes.map { offsets[$0] }, offsets[0], rule)
    }
}

/// The zones read so far, by file path, shared by every thread. Only zones that loaded are kept, so the memo is
/// bounded by the tz database's size (about 600 names), whatever names requests send.
private final class ZoneMemo: @unchecked Sendable {
    static let shared = ZoneMemo()

    /// Guards `zones`; allocated once, never freed (the memo lives as long as the process).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        return mutex
    }()
    private var zones: [String: ZoneInfo] = [:]

    func zone(at path: String) -> ZoneInfo? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return zones[path]
    }

    func remember(_ zone: ZoneInfo, at path: String) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if zones.count < 4_096 { zones[path] = zone }
    }
}
