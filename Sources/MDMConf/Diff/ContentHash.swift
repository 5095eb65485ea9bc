import Crypto

/// SHA-256 in lower-case hex: catalog file and generation hashes, and (its first 16 bytes) configuration ETags.
public enum ContentHash {
    /// The first `count` bytes of the SHA-256 of `bytes`, as `2 × count` hex digits.
    public static func hex(_ bytes: [UInt8], bytes count: Int = 32) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for byte in SHA256.hash(data: bytes).prefix(count) {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
