import CivilTime
import Crypto

/// A rollout percentage as an exact decimal with at most two places, kept in hundredths (0…10000).
public struct RolloutPercent: Hashable, Sendable, CustomStringConvertible {
    /// The percentage in hundredths of a percent (0…10000).
    public let hundredths: Int

    /// Parses the literal text of a number (`25`, `25.5`, `68.35`); nil outside 0–100 or with more than two
    /// decimals. The text is read as a decimal, never through a binary float.
    public init?(literal text: String) {
        let trimmed = text.trimmingASCIIWhitespace()
        let parts = trimmed.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 3,
            whole.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let wholeValue = Int(whole)
        else { return nil }
        var fraction = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...2).contains(digits.count), digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(digits)
            else { return nil }
            fraction = digits.count == 1 ? value * 10 : value
        }
        let total = wholeValue * 100 + fraction
        guard total <= 10_000 else { return nil }
        hundredths = total
    }

    public var description: String {
        let fraction = hundredths % 100
        return fraction == 0 ? "\(hundredths / 100)" : "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// Rollout bucketing (*Update policies*): a device's bucket is the first 8 bytes of
/// SHA-256(seed + ":" + deviceId'), big-endian, mod 10000; it is in the rollout iff bucket < percent × 100.
public enum Rollout {
    /// The bucket (0…9999) of `deviceID` under `seed`; the id is trimmed of ASCII whitespace and ASCII-lowercased.
    public static func bucket(seed: String, deviceID: String) -> Int {
        withNormalizedBytes(deviceID) { bucket(seed: seed, id: $0) }
    }

    /// A device id as buckets use it: trimmed of ASCII whitespace and ASCII-lowercased.
    public static func normalize(_ deviceID: String) -> String {
        // Most ids are already normal: no copy for them (a fleet summary normalizes one per device and app).
        var id = deviceID
        return id.withUTF8(isNormal) ? deviceID : String(decoding: normalizedBytes(deviceID), as: UTF8.self)
    }

    /// Whether an id's UTF-8 is already normal: no ASCII whitespace at either end, no upper-case ASCII letter.
    private static func isNormal(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return true }
        return !first.isASCIIWhitespace && !last.isASCIIWhitespace
            && !bytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
    }

    /// `body` with the normalized UTF-8 of an id: the id's own bytes when they are already normal (most are), else
    /// a normalized copy. Every bucket of a device id goes through it; a fleet pass buckets each device once per app,
    /// and a copy for every one was about 1.3 % of a report's instructions.
    static func withNormalizedBytes<Value>(_ deviceID: String, _ body: (UnsafeBufferPointer<UInt8>) -> Value)
        -> Value
    {
        var id = deviceID
        if id.withUTF8(isNormal) { return id.withUTF8(body) }
        return normalizedBytes(deviceID).withUnsafeBufferPointer(body)
    }

    /// `normalize(_:)` of an id, as UTF-8: made in one pass over its bytes (every update check makes one).
    static func normalizedBytes(_ deviceID: String) -> [UInt8] {
        var id = deviceID
        return id.withUTF8 { bytes in
            var (start, end) = (0, bytes.count)
            while start < end, bytes[start].isASCIIWhitespace { start += 1 }
            while end > start, bytes[end - 1].isASCIIWhitespace { end -= 1 }
            return bytes[start..<end].map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
        }
    }

    /// The bucket of an id already normalized, as UTF-8 (requests normalize theirs once, not once per policy).
    static func bucket(seed: String, id: [UInt8]) -> Int {
        id.withUnsafeBufferPointer { bucket(seed: seed, id: $0) }
    }

    /// The bucket of an id already normalized, as UTF-8 in place.
    static func bucket(seed: String, id: UnsafeBufferPointer<UInt8>) -> Int {
        let prefix = Array(seed.utf8) + [0x3A]
        return prefix.withUnsafeBufferPointer { bucket(prefix: $0, id: id) }
    }

    /// The bucket of `prefix` (the seed and a colon) followed by an id: hashed in place, nothing concatenated.
    static func bucket(prefix: UnsafeBufferPointer<UInt8>, id: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = SHA256()
        hasher.update(bufferPointer: UnsafeRawBufferPointer(prefix))
        hasher.update(bufferPointer: UnsafeRawBufferPointer(id))
        return hasher.finalize().withUnsafeBytes { digest in
            var value: UInt64 = 0
            for index in 0..<8 { value = value << 8 | UInt64(digest[index]) }
            return Int(value % 10_000)
        }
    }

    /// Whether a request is in the rollout: 100 % takes everyone (even without a device id), 0 % no one, any
    /// other percent only devices with an id whose bucket is below it.
    public static func includes(percent: RolloutPercent, seed: String, deviceID: String?) -> Bool {
        withNormalizedBytes(deviceID ?? "") { id in
            includes(hundredths: percent.hundredths, hasID: !id.isEmpty) { bucket(seed: seed, id: id) }
        }
    }

    /// The rule on its own: `bucket` is called only when it decides.
    static func includes(hundredths: Int, hasID: Bool, bucket: () -> Int) -> Bool {
        if hundredths == 10_000 { return true }
        if hundredths == 0 || !hasID { return false }
        return bucket() < hundredths
    }
}

extension String {
    /// Only A–Z lowered: device ids and tokens are compared ASCII case-insensitively.
    func asciiLowercased() -> String {
        // Most texts are lower-case already: returned as they are, without a copy. Looked at in the contiguous
        // bytes, several times faster than through the `UTF8View`.
        var text = self
        guard text.withUTF8({ $0.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) }) else { return self }
        return String(decoding: asciiLowercasedUTF8, as: UTF8.self)
    }

    /// `asciiLowercased()` as UTF-8.
    var asciiLowercasedUTF8: [UInt8] {
        var text = self
        return text.withUTF8 { $0.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 } }
    }
}
